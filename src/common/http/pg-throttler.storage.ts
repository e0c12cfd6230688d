import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { DataSource } from 'typeorm';

interface ThrottlerStorageRecord {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

/** What this instance knows of one counter. */
interface Counter {
  /** Hits in the shared row as of the last read. */
  shared: number;
  /** Hits counted here and not yet written. */
  pending: number;
  expiresAt: number;
  blockedUntil: number;
  ttl: number;
}

interface CounterRow {
  key: string;
  hits: number;
  expires_in_ms: number;
  blocked_in_ms: number;
}

const FLUSH_MS = 1000;
const MAX_COUNTERS = 100_000;

/**
 * Rate-limit counters shared by every instance through PostgreSQL (an UNLOGGED table), without
 * a database write on every public request. While a counter is below half its limit, hits are
 * counted in memory and written in one batched upsert a second; from half the limit on, and
 * while blocked, every hit is an exact upsert, so the block itself is decided on shared counts.
 * With N instances a client can get at most N × limit/2 extra hits in a window before every
 * instance sees the shared count: a bounded, documented slack (docs/foundation.md).
 */
@Injectable()
export class PgThrottlerStorage implements ThrottlerStorage, OnModuleDestroy {
  private readonly logger = new Logger('RateLimit');
  private readonly counters = new Map<string, Counter>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly dataSource: DataSource) {}

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const id = `${throttlerName}:${key}`;
    const now = Date.now();
    let c = this.counters.get(id);
    if (c && c.expiresAt <= now && c.blockedUntil <= now && c.pending === 0) {
      this.counters.delete(id);
      c = undefined;
    }
    if (!c) {
      if (this.counters.size >= MAX_COUNTERS) await this.flush();
      c = { shared: 0, pending: 0, expiresAt: now + ttl, blockedUntil: 0, ttl };
      this.counters.set(id, c);
    }
    const estimate = c.shared + c.pending + 1;
    if (estimate * 2 <= limit && c.blockedUntil <= now) {
      c.pending++;
      this.scheduleFlush();
      return { totalHits: estimate, timeToExpire: Math.ceil((c.expiresAt - now) / 1000), isBlocked: false, timeToBlockExpire: 0 };
    }
    const add = c.pending + 1;
    c.pending = 0;
    let row: CounterRow;
    try {
      [row] = await this.dataSource.query(EXACT_SQL, [id, add, ttl, limit, blockDuration]);
    } catch (err) {
      c.pending += add - 1; // keep what was counted; this request's hit fails with the error
      throw err;
    }
    this.remember(c, row, now);
    return {
      totalHits: Number(row.hits),
      timeToExpire: Math.ceil(row.expires_in_ms / 1000),
      isBlocked: c.blockedUntil > now,
      timeToBlockExpire: Math.ceil(row.blocked_in_ms / 1000),
    };
  }

  /** Writes every pending count in one statement and refreshes what other instances counted. */
  async flush(): Promise<void> {
    this.timer = undefined;
    const batch = [...this.counters].filter(([, c]) => c.pending > 0);
    const now = Date.now();
    for (const [id, c] of this.counters) {
      if (c.pending === 0 && c.expiresAt <= now && c.blockedUntil <= now) this.counters.delete(id);
    }
    if (batch.length === 0) return;
    const taken = batch.map(([, c]) => c.pending);
    batch.forEach(([, c]) => (c.pending = 0));
    try {
      const rows: CounterRow[] = await this.dataSource.query(BATCH_SQL, [
        batch.map(([id]) => id), taken, batch.map(([, c]) => c.ttl),
      ]);
      const byKey = new Map(batch);
      for (const row of rows) {
        const c = byKey.get(row.key);
        if (c) this.remember(c, row, now);
      }
    } catch (err) {
      batch.forEach(([, c], i) => (c.pending += taken[i]));
      this.logger.warn({ err }, 'Could not write rate-limit counters; will retry');
      this.scheduleFlush();
    }
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.flush().catch(() => undefined);
  }

  private remember(c: Counter, row: CounterRow, now: number): void {
    c.shared = Number(row.hits) - c.pending;
    c.expiresAt = now + Number(row.expires_in_ms);
    c.blockedUntil = Number(row.blocked_in_ms) > 0 ? now + Number(row.blocked_in_ms) : 0;
  }

  private scheduleFlush(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }
}

// A window restarts when it has expired and no block is running.
const RESTART = 'r.expires_at <= now() AND (r.blocked_until IS NULL OR r.blocked_until <= now())';
const RETURNING = `RETURNING key, hits,
  GREATEST(0, EXTRACT(EPOCH FROM (expires_at - now())) * 1000)::float8 AS expires_in_ms,
  GREATEST(0, EXTRACT(EPOCH FROM (COALESCE(blocked_until, now()) - now())) * 1000)::float8 AS blocked_in_ms`;

/** $1 key, $2 hits to add, $3 ttl ms, $4 limit, $5 block ms. */
const EXACT_SQL = `INSERT INTO rate_limits AS r (key, hits, expires_at, blocked_until)
  SELECT $1::text, $2::int, now() + make_interval(secs => $3::float8 / 1000.0),
         CASE WHEN $2::int > $4::int THEN now() + make_interval(secs => $5::float8 / 1000.0) END
  ON CONFLICT (key) DO UPDATE SET
    hits = CASE WHEN ${RESTART} THEN EXCLUDED.hits ELSE r.hits + EXCLUDED.hits END,
    expires_at = CASE WHEN r.expires_at <= now() THEN EXCLUDED.expires_at ELSE r.expires_at END,
    blocked_until = CASE
      WHEN r.blocked_until > now() THEN r.blocked_until
      WHEN (CASE WHEN ${RESTART} THEN EXCLUDED.hits ELSE r.hits + EXCLUDED.hits END) > $4::int
        THEN now() + make_interval(secs => $5::float8 / 1000.0)
      ELSE NULL END
  ${RETURNING}`;

/** $1 keys, $2 hits to add, $3 ttl ms: counts only; blocks are decided by EXACT_SQL. */
const BATCH_SQL = `INSERT INTO rate_limits AS r (key, hits, expires_at, blocked_until)
  SELECT k, h, now() + make_interval(secs => t / 1000.0), NULL FROM unnest($1::text[], $2::int[], $3::float8[]) AS u(k, h, t)
  ON CONFLICT (key) DO UPDATE SET
    hits = CASE WHEN ${RESTART} THEN EXCLUDED.hits ELSE r.hits + EXCLUDED.hits END,
    expires_at = CASE WHEN r.expires_at <= now() THEN EXCLUDED.expires_at ELSE r.expires_at END
  ${RETURNING}`;
