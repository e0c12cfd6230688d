import { Injectable } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { DataSource } from 'typeorm';

interface ThrottlerStorageRecord {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

/**
 * Rate-limit counters in PostgreSQL (an UNLOGGED table), so every server instance sees the same
 * counts. One upsert per counted request: a fixed window per key, then an optional block.
 */
@Injectable()
export class PgThrottlerStorage implements ThrottlerStorage {
  constructor(private readonly dataSource: DataSource) {}

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const [row] = await this.dataSource.query(
      `INSERT INTO rate_limits AS r (key, hits, expires_at, blocked_until)
       VALUES ($1, 1, now() + make_interval(secs => $2 / 1000.0), NULL)
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN r.expires_at <= now() AND (r.blocked_until IS NULL OR r.blocked_until <= now()) THEN 1 ELSE r.hits + 1 END,
         expires_at = CASE WHEN r.expires_at <= now() THEN EXCLUDED.expires_at ELSE r.expires_at END,
         blocked_until = CASE
           WHEN r.blocked_until > now() THEN r.blocked_until
           WHEN (CASE WHEN r.expires_at <= now() THEN 1 ELSE r.hits + 1 END) > $3 THEN now() + make_interval(secs => $4 / 1000.0)
           ELSE NULL END
       RETURNING hits,
         GREATEST(0, CEIL(EXTRACT(EPOCH FROM (expires_at - now()))))::int AS time_to_expire,
         COALESCE(blocked_until > now(), false) AS is_blocked,
         GREATEST(0, CEIL(EXTRACT(EPOCH FROM (COALESCE(blocked_until, now()) - now()))))::int AS time_to_block_expire`,
      [`${throttlerName}:${key}`, ttl, limit, blockDuration],
    );
    return {
      totalHits: Number(row.hits),
      timeToExpire: Number(row.time_to_expire),
      isBlocked: row.is_blocked === true,
      timeToBlockExpire: Number(row.time_to_block_expire),
    };
  }
}
