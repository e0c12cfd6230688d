import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface EntryResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs one of the server's entry points (`src/main.ts`, `src/cli/key.ts`) as its own process,
 * through ts-node as the cluster test does, with `env` on top of this process's environment
 * (a value of undefined removes a variable); resolves when it exits.
 */
export function runEntry(entry: string, args: string[], env: Record<string, string | undefined>): Promise<EntryResult> {
  const merged: NodeJS.ProcessEnv = { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'), ...env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', entry, ...args], {
      cwd: ROOT,
      env: merged,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
