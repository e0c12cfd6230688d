import { inspect } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import type { AppConfig } from './config/app-config';

/** A start-up failure explained for the person who ran the server: what is wrong, what to do. */
export class StartupError extends Error {}

/** Binds and releases the HTTP port before anything else starts (no key is printed for a start that cannot serve). */
export function assertPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((ok, fail) => {
    const probe = createServer();
    probe.once('error', (err) => fail(portError(err, port, host)));
    probe.listen(port, host, () => probe.close(() => ok()));
  });
}

export function portError(err: NodeJS.ErrnoException, port: number, host: string): Error {
  if (err.code === 'EADDRINUSE') {
    return new StartupError(
      `Port ${port} on ${host} is already in use: another Sitebase (or another program) is listening there. Stop it, or start this one with another PORT (e.g. PORT=3001 npm start).`,
    );
  }
  if (err.code === 'EACCES') {
    return new StartupError(
      `Port ${port} on ${host} needs more privileges than this process has. Use a port above 1023 (set PORT).`,
    );
  }
  if (err.code === 'EADDRNOTAVAIL') {
    return new StartupError(
      `HOST=${host} is not an address of this machine. Set HOST to one of its addresses, or 0.0.0.0 for all.`,
    );
  }
  return err;
}

/** The embedded PostgreSQL did not start: usually another instance holds its folder or port. */
export function embeddedDatabaseError(
  err: unknown,
  config: Pick<AppConfig, 'EMBEDDED_PG_DIR' | 'EMBEDDED_PG_PORT'>,
): StartupError {
  const dir = resolve(config.EMBEDDED_PG_DIR);
  const reason = err instanceof Error ? err.message : err === undefined ? 'it exited at once' : inspect(err);
  const pidFile = join(dir, 'postmaster.pid');
  const holder = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : NaN;
  const held =
    Number.isInteger(holder) && holder > 0 && isRunning(holder)
      ? ` Process ${holder} is already running a PostgreSQL in that folder: probably another Sitebase.`
      : '';
  return new StartupError(
    `The embedded PostgreSQL in ${dir} (port ${config.EMBEDDED_PG_PORT}) did not start (${reason}).${held} ` +
      'Stop the other instance, or give this one its own EMBEDDED_PG_DIR and EMBEDDED_PG_PORT, or use an external database with DATABASE_URL.',
  );
}

/** An external database that cannot be reached or refuses us. */
export function databaseError(err: unknown, url: string): Error {
  const e = err as NodeJS.ErrnoException & { code?: string };
  const where = safeTarget(url);
  switch (e?.code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
      return new StartupError(
        `Cannot reach PostgreSQL at ${where} (DATABASE_URL): ${e.code}. Start it, fix DATABASE_URL, or unset DATABASE_URL to use the embedded PostgreSQL.`,
      );
    case '28P01':
    case '28000':
      return new StartupError(
        `PostgreSQL at ${where} refused the credentials in DATABASE_URL. Fix the user or password.`,
      );
    case '3D000':
      return new StartupError(
        `The database named in DATABASE_URL does not exist on ${where}. Create it (createdb) or fix DATABASE_URL.`,
      );
    default:
      return err instanceof Error
        ? err
        : new StartupError(`Could not connect to PostgreSQL at ${where}: ${String(err)}`);
  }
}

/** What main prints before exiting 1. */
export function describeStartupError(err: unknown): string {
  if (err instanceof StartupError) return `Sitebase could not start: ${err.message}`;
  if (err instanceof Error) return `Sitebase could not start: ${err.stack ?? err.message}`;
  return `Sitebase could not start: ${err === undefined ? 'an unknown error (no message)' : inspect(err)}`;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** host:port/database of a URL, without its credentials. */
function safeTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return '(an unparsable DATABASE_URL)';
  }
}
