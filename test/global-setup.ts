import 'reflect-metadata';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgBoss } from 'pg-boss';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../src/database/data-source';
import { startEmbeddedPostgres } from '../src/database/embedded';
import { COMPILED_ENTRIES_ENV, compileEntries } from './support/compiled-entry';
import { adminQuery, freePort, TEST_ADMIN_URL_ENV, TEST_DB_PREFIX_ENV, withDatabase } from './support/databases';

interface JestGlobalConfig {
  maxWorkers: number;
}

/**
 * Starts PostgreSQL for the run: the server of DATABASE_URL when set (its own database is left
 * alone; the run creates and drops databases beside it), else an embedded one in a temp folder.
 */
export default async function globalSetup(config: JestGlobalConfig): Promise<void> {
  // A run that starts no server process (the generator's proof runs one on a copy) says so.
  if (process.env.SITEBASE_TEST_NO_PROCESSES !== '1') process.env[COMPILED_ENTRIES_ENV] = compileEntries();
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const port = await freePort();
    const db = await startEmbeddedPostgres({
      dir: join(tmpdir(), `sitebase-test-${process.pid}-${port}`),
      port,
      database: 'postgres',
      persistent: false,
    });
    (globalThis as Record<string, unknown>).__SITEBASE_TEST_DB__ = db;
    adminUrl = db.url;
  }
  const prefix = `sb_test_${Date.now().toString(36)}_${process.pid}`;
  process.env[TEST_ADMIN_URL_ENV] = adminUrl;
  process.env[TEST_DB_PREFIX_ENV] = prefix;

  const template = `${prefix}_tpl`;
  await adminQuery(adminUrl, `CREATE DATABASE "${template}"`);
  const templateUrl = withDatabase(adminUrl, template);
  const ds = await new DataSource(buildDataSourceOptions({ url: templateUrl })).initialize();
  await ds.runMigrations({ transaction: 'each' });
  await ds.destroy();
  // pg-boss creates its own schema on first start; do it once here rather than in every clone.
  const boss = new PgBoss({
    connectionString: templateUrl,
    schema: 'pgboss',
    supervise: false,
    schedule: false,
    max: 1,
  });
  await boss.start();
  await boss.stop({ graceful: false, close: true });

  for (let w = 1; w <= Math.max(1, config.maxWorkers); w++) {
    await adminQuery(adminUrl, `CREATE DATABASE "${prefix}_w${w}" TEMPLATE "${template}"`);
  }
}
