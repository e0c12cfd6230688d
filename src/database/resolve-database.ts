import { Client } from 'pg';
import { DatabaseConfig } from '../config/database.config';
import { resolve } from 'node:path';
import { EmbeddedDatabase, embeddedUrl, startEmbeddedPostgres } from './embedded';

/** How long a start waits for DATABASE_URL to answer (a database still starting is retried). */
export const DATABASE_CONNECT_DEADLINE_MS = 5000;
const RETRY_MS = 250;

/** DATABASE_URL when set (once it answers); otherwise the embedded PostgreSQL under EMBEDDED_PG_DIR. */
export async function resolveDatabase(
  config: DatabaseConfig,
  onLog?: (line: string) => void,
): Promise<EmbeddedDatabase> {
  if (config.DATABASE_URL) {
    await reachDatabase(config.DATABASE_URL);
    return { url: config.DATABASE_URL, stop: () => Promise.resolve() };
  }
  return startEmbeddedPostgres({ dir: config.EMBEDDED_PG_DIR, port: config.EMBEDDED_PG_PORT, onLog });
}

/**
 * The database a running server uses, for a command run beside it (`npm run key`): DATABASE_URL,
 * or the embedded PostgreSQL of EMBEDDED_PG_DIR, already running when a server is up (a second
 * one cannot start on its folder), else started for the command and stopped after it.
 */
export async function resolveSharedDatabase(config: DatabaseConfig): Promise<EmbeddedDatabase> {
  if (config.DATABASE_URL) return resolveDatabase(config);
  const url = embeddedUrl(config.EMBEDDED_PG_PORT);
  const running = await serverDataDirectory(url);
  if (running === null) return resolveDatabase(config);
  if (running !== resolve(config.EMBEDDED_PG_DIR))
    throw new Error(
      `port ${config.EMBEDDED_PG_PORT} (EMBEDDED_PG_PORT) is held by the PostgreSQL of another folder, ${running}, not ${resolve(config.EMBEDDED_PG_DIR)} (EMBEDDED_PG_DIR)`,
    );
  return { url, stop: () => Promise.resolve() };
}

/** The data folder of the PostgreSQL answering `url`, or null when nothing answers there. */
async function serverDataDirectory(url: string): Promise<string | null> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch {
    await client.end().catch(() => undefined);
    return null;
  }
  try {
    const { rows } = await client.query<{ data_directory: string }>('SHOW data_directory');
    return rows[0].data_directory;
  } finally {
    await client.end();
  }
}

/**
 * Connects once to `url` before the app is built, so that a database that is down, unknown or
 * refuses the credentials fails the start within the deadline with one error (the app's own
 * pool does not retry: TypeORM's retries took 30 s and logged each). A refused connection or
 * a server still starting up is tried again until the deadline; anything else fails at once.
 */
export async function reachDatabase(url: string, deadlineMs = DATABASE_CONNECT_DEADLINE_MS): Promise<void> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const client = new Client({ connectionString: url, connectionTimeoutMillis: Math.max(100, end - Date.now()) });
    // A server that goes away mid-handshake emits 'error' besides rejecting connect().
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => undefined);
      const e = err as Error & { code?: string };
      // pg's own deadline has no code; it is a timeout all the same.
      if (!e.code && /timeout/i.test(e.message)) e.code = 'ETIMEDOUT';
      const again = e.code === 'ECONNREFUSED' || e.code === '57P03';
      if (!again || Date.now() + RETRY_MS >= end) throw e;
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }
}
