import { createServer } from 'node:net';
import { Client } from 'pg';

/** The run's databases: `<prefix>_tpl` (migrated once) and `<prefix>_w<N>` per jest worker. */
export const TEST_DB_PREFIX_ENV = 'SITEBASE_TEST_DB_PREFIX';
export const TEST_ADMIN_URL_ENV = 'SITEBASE_TEST_ADMIN_URL';

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function adminQuery(
  adminUrl: string,
  sql: string,
  params: unknown[] = [],
): Promise<Array<Record<string, unknown>>> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** This worker's database URL. */
export function workerDatabaseUrl(): string {
  const admin = process.env[TEST_ADMIN_URL_ENV];
  const prefix = process.env[TEST_DB_PREFIX_ENV];
  if (!admin || !prefix) throw new Error('test/global-setup.ts did not run');
  return withDatabase(admin, `${prefix}_w${process.env.JEST_WORKER_ID ?? '1'}`);
}

/** A brand-new database cloned from the migrated template (for tests that need an empty one). */
export async function createFreshDatabase(tag: string): Promise<string> {
  const admin = process.env[TEST_ADMIN_URL_ENV]!;
  const prefix = process.env[TEST_DB_PREFIX_ENV]!;
  const name = `${prefix}_x${tag}${process.env.JEST_WORKER_ID ?? '1'}`;
  await adminQuery(admin, `DROP DATABASE IF EXISTS "${name}"`);
  await adminQuery(admin, `CREATE DATABASE "${name}" TEMPLATE "${prefix}_tpl"`);
  return withDatabase(admin, name);
}
