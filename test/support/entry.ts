import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { entryCommand } from './compiled-entry';

const ROOT = join(__dirname, '..', '..');

export interface EntryResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs one of the server's entry points (`src/main.ts`, `src/cli/key.ts`) as its own process,
 * from the run's compiled copy of src/ (compiled-entry.ts), with `env` on top of this process's environment
 * (a value of undefined removes a variable); resolves when it exits.
 */
export function runEntry(entry: string, args: string[], env: Record<string, string | undefined>): Promise<EntryResult> {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  const { command, args: entryArgs } = entryCommand(entry);
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...entryArgs, ...args], {
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
