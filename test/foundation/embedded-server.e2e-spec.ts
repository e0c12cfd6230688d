import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postmasterOf } from '../../src/database/embedded-owner';
import { entryCommand } from '../support/compiled-entry';
import { freePort } from '../support/databases';

/**
 * Issue 47, rows 1 and 3: the real entry point (src/main.ts) on its embedded PostgreSQL, one
 * data folder for the whole file. A server killed with SIGKILL leaves its PostgreSQL running:
 * the next start stops it and says so in one line (it refused, "probably another Sitebase").
 * A stop by any signal says only that it stopped: a terminal's Ctrl-C and SIGHUP reach the whole
 * process group (the server is its group's leader here, as in a terminal), the PostgreSQL too,
 * whose end of every connection (57P01) was logged as warnings and errors.
 */
const ROOT = join(__dirname, '..', '..');
const main = entryCommand('src/main.ts');

/**
 * The lines of an output: away from a terminal (LOG_FORMAT=auto) every one is a JSON line of the
 * log's shape (issue 47 row 4), main's own (listening, stopped, the left-over database) included.
 */
function jsonLines(text: string): Array<{ level: number; msg: string; time: number }> {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      try {
        return JSON.parse(line) as { level: number; msg: string; time: number };
      } catch {
        throw new Error(`Not a JSON line: ${line}`);
      }
    });
}

describe('a server on its embedded PostgreSQL: crash, restart, and every stop signal', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sitebase-embedded-47-'));
  const running: ChildProcess[] = [];
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // Run as root, the PostgreSQL runs as the postgres user, which must reach its folder.
    chmodSync(dir, 0o755);
    env = { ...process.env, PORT: String(await freePort()), HOST: '127.0.0.1', LOG_LEVEL: 'info', SMTP_URL: '' };
    Object.assign(env, { EMBEDDED_PG_DIR: join(dir, 'pg'), EMBEDDED_PG_PORT: String(await freePort()) });
    delete env.DATABASE_URL;
    delete env.BOOTSTRAP_API_KEY;
  });

  afterAll(async () => {
    for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    const left = postmasterOf(join(dir, 'pg'));
    if (left !== null) process.kill(left, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts the server in a process group of its own; resolves once it listens. */
  async function start(): Promise<{ child: ChildProcess; output: () => string; exited: Promise<number | null> }> {
    const child = spawn(main.command, main.args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    running.push(child);
    // Each stream apart (a line of one is never cut by the other's), then stdout and stderr.
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const text = () => `${out}${err}`;
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const end = Date.now() + 120_000;
    while (!out.includes(' listening on ')) {
      if (child.exitCode !== null || Date.now() > end) throw new Error(`the server did not start:\n${text()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return { child, output: text, exited };
  }

  /** A stop by `signal`, to the group (a terminal) or to the server alone (a service manager). */
  async function stopsQuietly(signal: NodeJS.Signals, toGroup: boolean): Promise<void> {
    const server = await start();
    const stoppedAt = Date.now();
    process.kill(toGroup ? -server.child.pid! : server.child.pid!, signal);
    expect(await server.exited).toBe(0);
    const after = jsonLines(server.output()).filter((l) => l.time >= stoppedAt);
    expect(after.map((l) => l.msg)).toContain(`Sitebase stopped (${signal})`);
    expect(after.filter((l) => l.level >= 40)).toEqual([]);
  }

  it('a server killed with SIGKILL: the next start stops its left-over PostgreSQL, in one line, and comes up', async () => {
    const first = await start();
    first.child.kill('SIGKILL');
    await first.exited;
    const pg = postmasterOf(join(dir, 'pg'));
    expect(pg).not.toBeNull();

    const second = await start();
    const about = jsonLines(second.output()).filter((line) => line.msg.includes('PostgreSQL'));
    expect(about).toEqual([
      expect.objectContaining({
        level: 40,
        msg: `Sitebase: the embedded PostgreSQL in ${join(dir, 'pg')} (process ${pg}) was left running by a Sitebase that is gone (process ${first.child.pid}); stopped it and starting it again.`,
      }),
    ]);
    const stoppedAt = Date.now();
    // Ctrl-C in a terminal: SIGINT to the server and its PostgreSQL at once.
    process.kill(-second.child.pid!, 'SIGINT');
    expect(await second.exited).toBe(0);
    const after = jsonLines(second.output()).filter((l) => l.time >= stoppedAt);
    expect(after.map((l) => l.msg)).toContain('Sitebase stopped (SIGINT)');
    expect(after.filter((l) => l.level >= 40)).toEqual([]);
  }, 300_000);

  it('SIGTERM (a service manager): only the stopped line', () => stopsQuietly('SIGTERM', false), 180_000);

  it('SIGHUP (the terminal closed): only the stopped line', () => stopsQuietly('SIGHUP', true), 180_000);
});
