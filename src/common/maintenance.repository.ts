import { DataSource } from 'typeorm';
import { sql } from '../database/sql';

/**
 * The framework's retention statements (docs/modules.md), one per table: each removes at most
 * `limit` rows in one short statement and answers how many.
 */
export class MaintenanceRepository {
  /** Idempotency keys stored more than `ttlSeconds` ago (index idempotency_keys_created_at_idx). */
  async deleteExpiredIdempotencyKeys(db: DataSource, ttlSeconds: number, limit: number): Promise<number> {
    const { rowCount } = await sql(
      db,
      `DELETE FROM idempotency_keys WHERE id = ANY(ARRAY(
         SELECT id FROM idempotency_keys WHERE created_at < now() - make_interval(secs => $1)
          ORDER BY created_at LIMIT $2))`,
      [ttlSeconds, limit],
    );
    return rowCount;
  }

  /**
   * Rate-limit windows that ended, unless they still block someone. No index: the table is
   * unlogged and holds one row per live window, and an index on expires_at would cost every
   * counted request; the scan stops at `limit` rows.
   */
  async deleteEndedRateLimits(db: DataSource, limit: number): Promise<number> {
    const { rowCount } = await sql(
      db,
      `DELETE FROM rate_limits WHERE key = ANY(ARRAY(
         SELECT key FROM rate_limits
          WHERE expires_at < now() AND (blocked_until IS NULL OR blocked_until < now()) LIMIT $1))
         -- again on the row as deleted: a request may have opened a new window meanwhile
         AND expires_at < now() AND (blocked_until IS NULL OR blocked_until < now())`,
      [limit],
    );
    return rowCount;
  }

  /** Events dispatched more than `days` ago (index outbox_events_dispatched_at_idx). */
  async deleteOldDispatchedEvents(db: DataSource, days: number, limit: number): Promise<number> {
    const { rowCount } = await sql(
      db,
      `DELETE FROM outbox_events WHERE id = ANY(ARRAY(
         SELECT id FROM outbox_events WHERE dispatched_at < now() - make_interval(days => $1)
          ORDER BY dispatched_at LIMIT $2))`,
      [days, limit],
    );
    return rowCount;
  }
}
