import { DataSource } from 'typeorm';

/** Columns the server writes in the background: the outbox relay, the key's last use. */
const VOLATILE_COLUMNS = new Set([
  'dispatched_at',
  'attempts',
  'next_attempt_at',
  'last_error',
  'failed_at',
  'parked_at',
  'last_used_at',
  'previous_last_used_at',
]);
/**
 * Columns of one table that background work moves: mail is sent and webhook deliveries run from the queue while
 * a test's requests are made (an earlier event's delivery is retried, an endpoint's health
 * follows, and each such write moves the row's updated_at), so they are not what a refused
 * request could have changed.
 */
const VOLATILE_TABLE_COLUMNS: Record<string, Set<string>> = {
  webhook_deliveries: new Set([
    'status',
    'last_attempt_at',
    'last_status_code',
    'last_error_kind',
    'delivered_at',
    'updated_at',
  ]),
  webhook_endpoints: new Set([
    'status',
    'disabled_reason',
    'disabled_at',
    'failing_since',
    'consecutive_failures',
    'retry_at',
    'last_success_at',
    'last_failure_at',
    'updated_at',
  ]),
  // The mail sender claims, sends and retries queued messages from the queue (an earlier test's
  // mail may still be on its way while a refused request is made).
  email_messages: new Set([
    'status',
    'claimed_at',
    'smtp_message_id',
    'smtp_response',
    'error',
    'sent_at',
    // Cleared once a copy is sent or failed (docs/email.md, "What is stored").
    'sealed_secrets',
    'updated_at',
  ]),
  // The series' enrollment sweep (every minute) moves its watermark.
  newsletter_series: new Set(['enrolled_through']),
};
/**
 * Tables that are not data, or only a log of background work: migrations, the rate-limit
 * counters every public hit writes, and the webhook delivery attempts the queue makes.
 */
const SKIPPED_TABLES = new Set(['typeorm_migrations', 'typeorm_metadata', 'rate_limits', 'webhook_attempts']);

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
    if (VOLATILE_TABLE_COLUMNS[c.table_name]?.has(c.column_name)) continue;
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
