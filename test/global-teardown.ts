import { adminQuery, TEST_ADMIN_URL_ENV, TEST_DB_PREFIX_ENV } from './support/databases';

export default async function globalTeardown(): Promise<void> {
  const adminUrl = process.env[TEST_ADMIN_URL_ENV];
  const prefix = process.env[TEST_DB_PREFIX_ENV];
  const embedded = (globalThis as Record<string, unknown>).__SITEBASE_TEST_DB__ as
    { stop(): Promise<void> } | undefined;
  if (embedded) {
    await embedded.stop(); // a throwaway cluster: nothing to drop
    return;
  }
  if (!adminUrl || !prefix) return;
  const rows = await adminQuery(adminUrl, 'SELECT datname FROM pg_database WHERE datname LIKE $1', [`${prefix}%`]);
  for (const { datname } of rows) {
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${String(datname)}" WITH (FORCE)`);
  }
}
