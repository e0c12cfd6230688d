import { DataSource } from 'typeorm';
import { sql } from '../database/sql';

/** The hourly clean-up's statements (docs/modules.md), one per table it trims. */
export class MaintenanceRepository {
  /** Idempotency keys stored more than `ttlSeconds` ago. */
  async deleteExpiredIdempotencyKeys(db: DataSource, ttlSeconds: number): Promise<void> {
    await sql(db, 'DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(secs => $1)', [ttlSeconds]);
  }

  /** Rate-limit windows that ended, unless they still block someone. */
  async deleteEndedRateLimits(db: DataSource): Promise<void> {
    await sql(
      db,
      'DELETE FROM rate_limits WHERE expires_at < now() AND (blocked_until IS NULL OR blocked_until < now())',
    );
  }

  /** Events dispatched more than 30 days ago. */
  async deleteOldDispatchedEvents(db: DataSource): Promise<void> {
    await sql(db, "DELETE FROM outbox_events WHERE dispatched_at < now() - interval '30 days'");
  }
}
