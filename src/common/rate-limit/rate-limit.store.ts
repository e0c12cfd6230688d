import { sql } from '../../database/sql';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What the guard needs to know of one hit. */
export interface RateDecision {
  blocked: boolean;
  /** Seconds until the block ends (when blocked). */
  retryAfter: number;
  /** When the block ends (epoch ms; 0 when not blocked). */
  until: number;
}

/** What this instance knows of one counter. */
interface Counter {
  /** Hits in the shared row as of the last read. */
  shared: number;
  /** Hits counted here and not yet written. */
  pending: number;
  /**
   * Hits on their way to the shared row (an exact upsert or a batch in flight): still counted
   * when deciding locally, or requests arriving meanwhile would pass on a stale count.
   */
  inflight: number;
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
/** Whole seconds until a block ends: at least 1, at most the block's own length. */
function retryAfterSeconds(remainingMs: number, blockMs: number): number {
  return Math.min(Math.max(1, Math.ceil(remainingMs / 1000)), Math.max(1, Math.ceil(blockMs / 1000)));
}

const PASS: RateDecision = Object.freeze({ blocked: false, retryAfter: 0, until: 0 });

/**
 * Rate-limit counters shared by every instance through PostgreSQL (an UNLOGGED table), without
 * a database round trip on most requests (docs/foundation.md, "Rate limiting"):
 * - below half its limit, a counter is kept in memory and written in one batched upsert a
 *   second, which also brings back what the other instances counted;
 * - from half the limit on, a hit is an exact shared upsert, so the block is decided on the
 *   counts of every instance;
 * - once this instance knows a counter is blocked, every further hit is answered from memory
 *   (and counted for the next batch): refusing a flood costs no database work per request.
 * With N instances a client gets at most about N × limit/2 extra hits in one window.
 * `hit` answers synchronously when it can: the guard then costs no promise.
 */
@Injectable()
export class RateLimitStore implements OnModuleDestroy {
  private readonly logger = new Logger('RateLimit');
  private readonly counters = new Map<string, Counter>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly dataSource: DataSource) {}

  hit(key: string, ttl: number, limit: number, blockDuration: number): RateDecision | Promise<RateDecision> {
    const now = Date.now();
    let c = this.counters.get(key);
    if (c && c.expiresAt <= now && c.blockedUntil <= now && c.pending === 0 && c.inflight === 0) {
      this.counters.delete(key);
      c = undefined;
    }
    if (!c) {
      if (this.counters.size >= MAX_COUNTERS) void this.flush();
      c = { shared: 0, pending: 0, inflight: 0, expiresAt: now + ttl, blockedUntil: 0, ttl };
      this.counters.set(key, c);
    }
    if (c.blockedUntil > now) {
      c.pending++;
      this.scheduleFlush();
      return {
        blocked: true,
        retryAfter: retryAfterSeconds(c.blockedUntil - now, blockDuration),
        until: c.blockedUntil,
      };
    }
    if ((c.shared + c.pending + c.inflight + 1) * 2 <= limit) {
      c.pending++;
      this.scheduleFlush();
      return PASS;
    }
    return this.exact(key, c, ttl, limit, blockDuration, now);
  }

  /** A hit refused before routing (BlockedClients): counted for the next batch, nothing else. */
  countRefused(key: string): void {
    const c = this.counters.get(key);
    if (!c) return;
    c.pending++;
    this.scheduleFlush();
  }

  private async exact(
    key: string,
    c: Counter,
    ttl: number,
    limit: number,
    blockDuration: number,
    now: number,
  ): Promise<RateDecision> {
    const add = c.pending + 1;
    c.pending = 0;
    c.inflight += add;
    let row: CounterRow;
    try {
      [row] = (await sql<CounterRow>(this.dataSource, EXACT_SQL, [key, add, ttl, limit, blockDuration])).rows;
    } catch (err) {
      c.pending += add - 1; // keep what was counted; this request's hit fails with the error
      throw err;
    } finally {
      c.inflight -= add;
    }
    this.remember(c, row, now);
    return c.blockedUntil > now
      ? // The database's clock and rounding may put the end a few ms past the block: never more than it.
        { blocked: true, retryAfter: retryAfterSeconds(row.blocked_in_ms, blockDuration), until: c.blockedUntil }
      : PASS;
  }

  /** Writes every pending count in one statement and refreshes what other instances counted. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.counters].filter(([, c]) => c.pending > 0);
    const now = Date.now();
    for (const [id, c] of this.counters) {
      if (c.pending === 0 && c.inflight === 0 && c.expiresAt <= now && c.blockedUntil <= now) this.counters.delete(id);
    }
    if (batch.length === 0) return;
    const taken = batch.map(([, c]) => c.pending);
    batch.forEach(([, c], i) => {
      c.pending = 0;
      c.inflight += taken[i];
    });
    try {
      const { rows } = await sql<CounterRow>(this.dataSource, BATCH_SQL, [
        batch.map(([id]) => id),
        taken,
        batch.map(([, c]) => c.ttl),
      ]);
      batch.forEach(([, c], i) => (c.inflight -= taken[i]));
      const byKey = new Map(batch);
      for (const row of rows) {
        const c = byKey.get(row.key);
        if (c) this.remember(c, row, now);
      }
    } catch (err) {
      batch.forEach(([, c], i) => {
        c.inflight -= taken[i];
        c.pending += taken[i];
      });
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

/** $1 keys, $2 hits to add, $3 ttl ms: counts only; blocks are decided by EXACT_SQL and kept. */
const BATCH_SQL = `INSERT INTO rate_limits AS r (key, hits, expires_at, blocked_until)
  SELECT k, h, now() + make_interval(secs => t / 1000.0), NULL FROM unnest($1::text[], $2::int[], $3::float8[]) AS u(k, h, t)
  ON CONFLICT (key) DO UPDATE SET
    hits = CASE WHEN ${RESTART} THEN EXCLUDED.hits ELSE r.hits + EXCLUDED.hits END,
    expires_at = CASE WHEN r.expires_at <= now() THEN EXCLUDED.expires_at ELSE r.expires_at END,
    blocked_until = CASE WHEN ${RESTART} THEN NULL ELSE r.blocked_until END
  ${RETURNING}`;
