import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { JobsConfig } from '../../config/jobs.config';
import { AppMetrics } from '../metrics/app-metrics';
import { Clock } from '../scheduling/clock';
import { describeFailure, failedEarlier } from './outbox-failure';
import { Charged, Claimed, OutboxRetries } from './outbox-retries';
import { OutboxRepository } from './outbox.repository';

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
   * event that asked first is rolled back. A throw rolls the batch back; every event that asked
   * for the key counts a failed attempt, and the others are dispatched again at once.
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
   * wanting: the subscriber then runs, and fails, in the event's own savepoint; one whose
   * statement failed (the transaction is then aborted) counts the event a failed attempt.
   */
  wants?: (em: EntityManager, event: OutboxEvent, batch: OutboxBatch) => Promise<boolean>;
}

const BATCH = 200;

/** One try of a batch: what it claimed and charged, and, when it failed, the events to blame and why. */
interface Pass {
  claimed: Claimed[];
  charged: Charged[];
  culprits?: number[];
  /** What they threw, when the error that ended the transaction came later (an aborted transaction). */
  cause?: unknown;
}

const newPass = (): Pass => ({ claimed: [], charged: [] });

/** Batches tried again without the events named for their failure, before trying each event alone. */
const RETRIES_WITHOUT_CULPRITS = 3;

/**
 * Publishes outbox events to in-process subscribers (webhook fan-out, mail triggers), at least
 * once. Rows are claimed with FOR UPDATE SKIP LOCKED, so several instances share the work. An
 * event whose delivery fails is retried with backoff and parked after OUTBOX_MAX_ATTEMPTS; it
 * never holds back the others (docs/foundation.md, "Events, jobs and the outbox").
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Outbox');
  private readonly subscribers: Array<{ pattern: RegExp; fn: OutboxSubscriber } & SubscribeOptions> = [];
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  private stopped = false;
  private readonly retries: OutboxRetries;
  private readonly repository = new OutboxRepository();

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: JobsConfig,
    private readonly clock: Clock,
    metrics: AppMetrics,
  ) {
    this.retries = new OutboxRetries(dataSource, config.OUTBOX_MAX_ATTEMPTS, metrics, this.logger);
  }

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
        this.running = this.poll();
        await this.running;
      } catch (err) {
        // Only the database itself gets here (the claim, a lost connection): no event is to blame.
        this.logger.error({ error: describeFailure(err) }, 'Outbox dispatch failed; will retry');
      }
      if (!this.stopped) this.timer = setTimeout(schedule, this.config.OUTBOX_POLL_MS);
    };
    // tick() catches and logs its own failures; the timer only starts it.
    const schedule = () => void tick();
    this.timer = setTimeout(schedule, this.config.OUTBOX_POLL_MS);
  }

  /** One poll: batches until one is not full (a backlog drains at once). Answers the events handled. */
  async poll(): Promise<number> {
    let total = 0;
    let n: number;
    do {
      n = await this.dispatchBatch();
      total += n;
    } while (n === BATCH && !this.stopped);
    return total;
  }

  /**
   * Dispatches one batch of due events; answers how many it claimed. The happy path is one
   * transaction. When it fails, the events to blame (a `once` key's askers, an event whose
   * `wants` aborted the transaction) count a failed attempt and the rest is dispatched again at
   * once; when no event can be named, each is dispatched in a transaction of its own, so the one
   * that fails alone is found and counted. Nothing an event does can hold back the others.
   */
  async dispatchBatch(): Promise<number> {
    const now = this.clock.now();
    const pass = newPass();
    try {
      await this.run(pass, now);
    } catch (err) {
      if (pass.claimed.length === 0) throw err; // the claim failed: the database, not an event
      await this.recover(pass, err, now);
    }
    return pass.claimed.length;
  }

  /** Dispatches in one transaction; what it charged is logged and counted once that commits. */
  private async run(pass: Pass, now: Date, only?: number[]): Promise<void> {
    await this.dataSource.transaction((em) => this.dispatch(em, pass, now, only));
    this.retries.report(pass.charged);
  }

  private async recover(failed: Pass, err: unknown, now: Date): Promise<void> {
    let rest = failed.claimed.map((e) => e.id);
    let pass = failed;
    let error = err;
    for (let retry = 0; pass.culprits?.length && retry < RETRIES_WITHOUT_CULPRITS; retry++) {
      const culprits = new Set(pass.culprits);
      await this.retries.chargeApart(pass.culprits, pass.cause ?? error, now);
      rest = rest.filter((id) => !culprits.has(id));
      if (rest.length === 0) return;
      pass = newPass();
      try {
        await this.run(pass, now, rest);
        return;
      } catch (again) {
        error = again;
      }
    }
    // Nothing names the event that failed the batch: each goes alone, and the one that fails is counted.
    for (const id of rest) {
      if (this.stopped) return; // the rest stays pending for the next poll, here or elsewhere
      const alone = newPass();
      try {
        await this.run(alone, now, [id]);
      } catch (e) {
        if (alone.claimed.length === 0) throw e;
        await this.retries.chargeApart([id], alone.cause ?? e, now);
      }
    }
  }

  private async dispatch(em: EntityManager, pass: Pass, now: Date, only?: number[]): Promise<number> {
    const rows = await this.repository.claim(em, now, BATCH, only);
    pass.claimed = rows.map(({ id, name, attempts }) => ({ id, name, attempts }));
    if (rows.length === 0) return 0;
    const done: number[] = [];
    const deferred = new Map<string, () => Promise<void>>();
    /** Every event whose delivery relies on a key's deferred work, not only the first that asked. */
    const askers = new Map<string, number[]>();
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
      const added: string[] = [];
      const asked: string[] = [];
      const batch: OutboxBatch = {
        once: (key, fn) => {
          asked.push(key);
          if (deferred.has(key)) return;
          deferred.set(key, fn);
          added.push(key);
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
      let unsure: { error: unknown } | undefined;
      for (const s of this.subscribers) {
        if (!s.pattern.test(row.name)) continue;
        if (s.wants) {
          let wanted: boolean;
          try {
            wanted = await s.wants(em, event, batch);
          } catch (error) {
            wanted = true;
            if (!failedEarlier(error)) unsure ??= { error };
          }
          if (!wanted) continue;
        }
        targets.push(s.fn);
      }
      if (targets.length === 0) {
        done.push(row.id);
        continue;
      }
      try {
        await this.repository.openEventSavepoint(em);
      } catch (err) {
        // A `wants` of this event threw and the transaction is aborted: its statement failed.
        if (unsure) Object.assign(pass, { culprits: [row.id], cause: unsure.error });
        throw err;
      }
      try {
        for (const fn of targets) await fn(em, event, batch);
        await this.repository.releaseEventSavepoint(em);
        done.push(row.id);
        for (const key of asked) {
          const list = askers.get(key);
          if (list) list.push(row.id);
          else askers.set(key, [row.id]);
        }
      } catch (err) {
        await this.repository.rollbackEventSavepoint(em);
        for (const key of added) deferred.delete(key);
        pass.charged.push(...(await this.retries.charge(em, [row], err, now)));
      }
    }
    for (const [key, fn] of deferred) {
      try {
        await fn();
      } catch (err) {
        if (!failedEarlier(err)) pass.culprits = askers.get(key);
        throw err;
      }
    }
    if (done.length) await this.repository.markDispatched(em, done);
    return rows.length;
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }
}
