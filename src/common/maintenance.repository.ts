import { DataSource } from 'typeorm';
import { DAY_SECONDS, deleteAged } from '../database/retention-sql';
import { sql } from '../database/sql';

/**
 * The framework's retention statements (docs/modules.md), one per table: each removes at most
 * `limit` rows in one short statement and answers how many.
 */
export class MaintenanceRepository {
  /** Idempotency keys stored more than `ttlSeconds` ago (index idempotency_keys_created_at_idx). */
  deleteExpiredIdempotencyKeys(db: DataSource, ttlSeconds: number, limit: number): Promise<number> {
    return deleteAged(db, { table: 'idempotency_keys', time: 'created_at' }, ttlSeconds, limit);
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
  deleteOldDispatchedEvents(db: DataSource, days: number, limit: number): Promise<number> {
    return deleteAged(db, { table: 'outbox_events', time: 'dispatched_at' }, days * DAY_SECONDS, limit);
  }
}
