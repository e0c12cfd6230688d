import { DataSource } from 'typeorm';

/** Columns the server writes in the background: the outbox relay, the key's last use. */
const VOLATILE_COLUMNS = new Set([
  'dispatched_at',
  'attempts',
  'next_attempt_at',
  'last_error',
  'failed_at',
  'last_used_at',
]);
/** Tables that are not data: migrations, and the rate-limit counters every public hit writes. */
const SKIPPED_TABLES = new Set(['typeorm_migrations', 'typeorm_metadata', 'rate_limits']);

/**
 * Row count and an md5 of every row of every table in `public` (outbox_events included), leaving
 * out the columns background work updates. Two equal snapshots: no request changed anything.
 */
export async function snapshotDatabase(db: DataSource): Promise<Record<string, string>> {
  const columns: Array<{ table_name: string; column_name: string }> = await db.query(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  const byTable = new Map<string, string[]>();
  for (const c of columns) {
    if (SKIPPED_TABLES.has(c.table_name) || VOLATILE_COLUMNS.has(c.column_name)) continue;
    byTable.set(c.table_name, [...(byTable.get(c.table_name) ?? []), c.column_name]);
  }
  const snapshot: Record<string, string> = {};
  for (const [table, cols] of byTable) {
    const row = `ROW(${cols.map((c) => `t."${c}"`).join(', ')})::text`;
    const [{ n, sum }] = await db.query(
      `SELECT count(*)::int AS n, md5(coalesce(string_agg(${row}, '|' ORDER BY ${row}), '')) AS sum FROM "${table}" t`,
    );
    snapshot[table] = `${n}:${sum}`;
  }
  return snapshot;
}
