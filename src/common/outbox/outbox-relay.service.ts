import { sql } from '../../database/sql';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { OutboxEventEntity } from './outbox-event.entity';

export interface OutboxEvent {
  id: number;
  accountId: number;
  siteId: number | null;
  name: string;
  payload: Record<string, unknown>;
  createdAt: Date;
}

/** What a subscriber may leave to the end of its batch of events. */
export interface OutboxBatch {
  /**
   * Runs `fn` once per `key` after every event of the batch, in the batch's transaction: for
   * work that many events would repeat, like queueing one job per target. Dropped when the
   * event that asked first is rolled back; a throw rolls back the whole batch (retried).
   */
  once(key: string, fn: () => Promise<void>): void;
  /**
   * What `load` answers for `key`, loaded once per batch, in the batch's transaction: for reads
   * that many events of a batch would repeat (a site's webhook endpoints). The batch's events are
   * dispatched as of that read. A load that fails is not kept.
   */
  memo<T>(key: string, load: () => Promise<T>): Promise<T>;
}

/** A subscriber runs inside the relay's transaction: enqueue jobs with `em`, never call out. */
export type OutboxSubscriber = (em: EntityManager, event: OutboxEvent, batch: OutboxBatch) => Promise<void>;

export interface SubscribeOptions {
  /**
   * Whether the subscriber has anything to do for this event, answered by reading only (through
   * `batch.memo` for reads the batch's events share). An event that no subscriber wants is marked
   * dispatched without a savepoint or any statement of its own. A `wants` that throws counts as
   * wanting: the subscriber then runs, and fails, in the event's own savepoint.
   */
  wants?: (em: EntityManager, event: OutboxEvent, batch: OutboxBatch) => Promise<boolean>;
}

const BATCH = 200;
const MAX_ATTEMPTS = 10;

/**
 * Publishes outbox events to in-process subscribers (webhook fan-out, mail triggers), at least
 * once. Rows are claimed with FOR UPDATE SKIP LOCKED, so several instances share the work.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Outbox');
  private readonly subscribers: Array<{ pattern: RegExp; fn: OutboxSubscriber } & SubscribeOptions> = [];
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /** `pattern` is an event name, or a prefix ending in `*` (`content.*`), or `*`. */
  subscribe(pattern: string, fn: OutboxSubscriber, options: SubscribeOptions = {}): void {
    const re = new RegExp(
      `^${pattern
        .split('*')
        .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    this.subscribers.push({ ...options, pattern: re, fn });
  }

  onApplicationBootstrap(): void {
    if (!this.config.JOBS_ENABLED) return;
    const tick = async () => {
      if (this.stopped) return;
      try {
        // Drain quickly when there is a backlog, otherwise wait for the next poll.
        let n: number;
        do {
          this.running = this.dispatchBatch();
          n = await this.running;
        } while (n === BATCH && !this.stopped);
      } catch (err) {
        this.logger.error({ err }, 'Outbox dispatch failed; will retry');
      }
      if (!this.stopped) this.timer = setTimeout(schedule, this.config.OUTBOX_POLL_MS);
    };
    // tick() catches and logs its own failures; the timer only starts it.
    const schedule = () => void tick();
    this.timer = setTimeout(schedule, this.config.OUTBOX_POLL_MS);
  }

  /**
   * Dispatches one batch; returns how many events it handled. Each event its subscribers want
   * runs in a savepoint: a subscriber that throws rolls back only that event, which is retried
   * with backoff (2^attempts s, at most an hour) and given up after MAX_ATTEMPTS, so it never
   * holds back the others. An event nobody wants (every campaign copy's `email.sent` on a site
   * without webhooks) costs no statement: a savepoint and its release were two of the three
   * statements each such event cost, the endpoints' read the third (docs/performance.md, "Outbox").
   */
  dispatchBatch(): Promise<number> {
    return this.dataSource.transaction(async (em) => {
      const rows = await em
        .createQueryBuilder(OutboxEventEntity, 'e')
        .where('e.dispatched_at IS NULL AND e.failed_at IS NULL')
        .andWhere('(e.next_attempt_at IS NULL OR e.next_attempt_at <= now())')
        .orderBy('e.id', 'ASC')
        .limit(BATCH)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany();
      if (rows.length === 0) return 0;
      const done: number[] = [];
      const deferred = new Map<string, () => Promise<void>>();
      const memos = new Map<string, Promise<unknown>>();
      const memo = <T>(key: string, load: () => Promise<T>): Promise<T> => {
        let value = memos.get(key) as Promise<T> | undefined;
        if (!value) {
          value = load();
          memos.set(key, value);
          value.catch(() => memos.delete(key));
        }
        return value;
      };
      for (const row of rows) {
        const asked: string[] = [];
        const batch: OutboxBatch = {
          once: (key, fn) => {
            if (deferred.has(key)) return;
            deferred.set(key, fn);
            asked.push(key);
          },
          memo,
        };
        const event: OutboxEvent = {
          id: row.id,
          accountId: row.accountId,
          siteId: row.siteId,
          name: row.name,
          payload: row.payload,
          createdAt: row.createdAt,
        };
        const targets: OutboxSubscriber[] = [];
        for (const s of this.subscribers) {
          if (!s.pattern.test(row.name)) continue;
          if (s.wants && !(await s.wants(em, event, batch).catch(() => true))) continue;
          targets.push(s.fn);
        }
        if (targets.length === 0) {
          done.push(row.id);
          continue;
        }
        await sql(em, 'SAVEPOINT outbox_event');
        try {
          for (const fn of targets) await fn(em, event, batch);
          await sql(em, 'RELEASE SAVEPOINT outbox_event');
          done.push(row.id);
        } catch (err) {
          await sql(em, 'ROLLBACK TO SAVEPOINT outbox_event');
          for (const key of asked) deferred.delete(key);
          const attempts = row.attempts + 1;
          const giveUp = attempts >= MAX_ATTEMPTS;
          this.logger.warn({ err, eventId: row.id, event: row.name, attempts, giveUp }, 'Outbox subscriber failed');
          await sql(
            em,
            `UPDATE outbox_events SET attempts = $2, last_error = $3,
               next_attempt_at = now() + make_interval(secs => $4), failed_at = CASE WHEN $5 THEN now() END
             WHERE id = $1`,
            [
              row.id,
              attempts,
              String((err as Error)?.message ?? err).slice(0, 500),
              Math.min(3600, 2 ** attempts),
              giveUp,
            ],
          );
        }
      }
      for (const fn of deferred.values()) await fn();
      if (done.length) await sql(em, 'UPDATE outbox_events SET dispatched_at = now() WHERE id = ANY($1)', [done]);
      return rows.length;
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }
}
