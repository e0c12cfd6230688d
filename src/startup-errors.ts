import { inspect } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import type { DatabaseConfig } from './config/database.config';
import { isRunning } from './database/embedded-owner';

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
  config: Pick<DatabaseConfig, 'EMBEDDED_PG_DIR' | 'EMBEDDED_PG_PORT'>,
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

/** Why a connection failed, by the code pg or the socket gave. */
const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved',
  ETIMEDOUT: 'no answer',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  '57P03': 'the server is still starting up',
};
/** Reasons the start waited out (resolve-database.ts retries them until its deadline). */
const WAITED = new Set(['ECONNREFUSED', 'ETIMEDOUT', '57P03']);

/** An external database that cannot be reached or refuses us; other errors are returned as they are. */
export function databaseError(err: unknown, url: string, waitedMs = 5000): Error {
  const e = err as NodeJS.ErrnoException & { code?: string };
  const where = safeTarget(url);
  const code = e?.code ?? '';
  if (code in UNREACHABLE) {
    const waited = WAITED.has(code) ? `, tried for ${Math.round(waitedMs / 1000)} s` : '';
    return new StartupError(
      `Cannot reach PostgreSQL at ${where} (DATABASE_URL): ${UNREACHABLE[code]} (${code})${waited}. Start it, fix DATABASE_URL, or unset DATABASE_URL to use the embedded PostgreSQL.`,
    );
  }
  switch (code) {
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

/** The first connection to DATABASE_URL failed: always one line, whatever the cause (TLS, a malformed URL, ...). */
export function connectError(err: unknown, url: string, waitedMs?: number): StartupError {
  const known = databaseError(err, url, waitedMs);
  if (known instanceof StartupError) return known;
  let message = known.message.split('\n')[0];
  const password = passwordOf(url);
  if (password) message = message.split(password).join('***');
  return new StartupError(`Could not connect to PostgreSQL at ${safeTarget(url)} (DATABASE_URL): ${message}`);
}

/** What main prints before exiting 1. */
export function describeStartupError(err: unknown): string {
  // One line per problem (several settings may be wrong at once), each complete on its own.
  if (err instanceof StartupError)
    return err.message
      .split('\n')
      .map((line) => `Sitebase could not start: ${line}`)
      .join('\n');
  if (err instanceof Error) return `Sitebase could not start: ${err.stack ?? err.message}`;
  return `Sitebase could not start: ${err === undefined ? 'an unknown error (no message)' : inspect(err)}`;
}

function passwordOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}

/** host:port/database of a URL, without its credentials. */
export function safeTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return '(an unparsable DATABASE_URL)';
  }
}
