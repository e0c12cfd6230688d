import { transactionDb } from '../../database/sql';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { PgBoss } from 'pg-boss';
import { DataSource, EntityManager } from 'typeorm';
import { JobsConfig } from '../../config/jobs.config';
import { withAdvisoryLock } from '../../database/advisory-lock';
import { AppMetrics } from '../metrics/app-metrics';
import { carryOverV10Jobs, setAsideV10Schema } from './pgboss-v10';
import { unlessStopping } from '../process-stopping';

export interface JobOptions {
  retryLimit?: number;
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  expireInSeconds?: number;
  /** Worker loops of this queue in one instance; default 1. */
  concurrency?: number;
  /** Jobs one loop fetches and runs together; default 1. */
  batchSize?: number;
  /**
   * pg-boss's queue policy. `stately`: per singletonKey at most one job waiting and one running
   * (a per-key mutex that still lets work arriving meanwhile queue one follow-up run).
   */
  policy?: 'standard' | 'stately';
}

export interface SendOptions {
  startAfter?: Date;
  singletonKey?: string;
  /** Enqueue inside this transaction: the job exists if and only if the caller commits. */
  em?: EntityManager;
  /** Jobs of a queue are fetched by priority (higher first), then in the order they were sent; default 0. */
  priority?: number;
}

type Handler<T> = (data: T, job: { id: string; retryCount: number }) => Promise<void>;

interface Registration {
  handler: Handler<never>;
  options: JobOptions;
  cron?: string;
}

/**
 * Any constant works. Instances starting together take turns setting up the queues: pg-boss 10
 * created a queue with an insert and DDL (a partition of its job table), and two instances at once
 * deadlocked; the hand-over from a pg-boss 10 schema (pgboss-v10.ts) must happen once.
 */
const QUEUE_SETUP_LOCK = 7_312_002;

/** pg-boss's tables live in this schema (queried directly by the metrics and by tests). */
const SCHEMA = 'pgboss';

const DEFAULTS: Required<JobOptions> = {
  retryLimit: 5,
  retryDelaySeconds: 5,
  retryBackoff: true,
  expireInSeconds: 15 * 60,
  concurrency: 1,
  batchSize: 1,
  policy: 'standard',
};

/**
 * The PostgreSQL-backed job queue (pg-boss): several server instances share the jobs and a crash
 * loses none. Modules register handlers in onModuleInit; workers start once the app has booted.
 * Handlers receive ids, not objects, and must be safe to run twice.
 */
@Injectable()
export class QueueService implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  /** Each queue's worker loops on this instance (pg-boss worker ids), for wake(). */
  private readonly loops = new Map<string, string[]>();
  private readonly logger = new Logger('Queue');
  private readonly registrations = new Map<string, Registration>();
  private boss?: PgBoss;
  private started = false;
  private stopping = false;
  /** Jobs whose handler is running in this instance. */
  private running = 0;

  constructor(
    private readonly config: JobsConfig,
    private readonly dataSource: DataSource,
    private readonly metrics: AppMetrics,
  ) {}

  /** Registers a handler for `name`; with `cron`, the job also runs on that schedule. */
  register<T>(name: string, handler: Handler<T>, options: JobOptions & { cron?: string } = {}): void {
    if (this.registrations.has(name)) throw new Error(`Job ${name} is registered twice`);
    const { cron, ...jobOptions } = options;
    this.registrations.set(name, { handler: handler, options: jobOptions, cron });
  }

  async onModuleInit(): Promise<void> {
    const options = this.dataSource.options as { url?: string };
    this.boss = new PgBoss({
      connectionString: options.url,
      schema: SCHEMA,
      max: 4,
      application_name: 'sitebase-queue',
      supervise: this.config.JOBS_ENABLED,
      schedule: this.config.JOBS_ENABLED,
    });
    // pg-boss errors carry the whole pg client; the logger's err serializer keeps what helps
    // (message, code). Once stopping, lost connections are expected and not worth an error line.
    this.boss.on('error', (err: Error) => {
      const detail = { err };
      const quiet = () => this.logger.debug(detail, 'Queue error while stopping');
      if (this.stopping) quiet();
      else unlessStopping(() => (this.stopping ? quiet() : this.logger.error(detail, 'Queue error')), quiet);
    });
    const boss = this.boss;
    await withAdvisoryLock(this.dataSource, QUEUE_SETUP_LOCK, async () => {
      await setAsideV10Schema(this.dataSource, SCHEMA);
      await boss.start();
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    const boss = this.requireBoss();
    await withAdvisoryLock(this.dataSource, QUEUE_SETUP_LOCK, async () => {
      for (const [name, reg] of this.registrations) {
        const o = { ...DEFAULTS, ...reg.options };
        const settings = {
          retryLimit: o.retryLimit,
          retryDelay: o.retryDelaySeconds,
          retryBackoff: o.retryBackoff,
          expireInSeconds: o.expireInSeconds,
        };
        await boss.createQueue(name, { ...settings, policy: o.policy });
        // createQueue keeps an existing queue as it was: settings changed since (a retry limit
        // from the configuration) apply from this start on. The policy is the queue's for good
        // (pg-boss refuses to change it).
        await boss.updateQueue(name, settings);
        if (reg.cron && this.config.JOBS_ENABLED) await boss.schedule(name, reg.cron, {});
      }
      await carryOverV10Jobs(this.dataSource, boss, new Set(this.registrations.keys()));
    });
    for (const [name, reg] of this.registrations) {
      if (!this.config.JOBS_ENABLED) continue;
      for (let i = 0; i < (reg.options.concurrency ?? DEFAULTS.concurrency); i++) await this.work(boss, name, reg);
    }
    this.started = true;
  }

  /**
   * One worker loop. pg-boss waits its polling interval after every fetch, even a fruitful one:
   * a full batch therefore wakes the loop at once (notifyWorker), so a backlog drains at the
   * speed of the handlers and only an empty queue is polled. Jobs of a batch run together and
   * fail on their own (the rest of the batch completes).
   */
  private async work(boss: PgBoss, name: string, reg: Registration): Promise<void> {
    const batchSize = reg.options.batchSize ?? DEFAULTS.batchSize;
    const loop: { id?: string } = {};
    const loops = this.loops.get(name) ?? [];
    this.loops.set(name, loops);
    loop.id = await boss.work<Record<string, unknown>>(
      name,
      { pollingIntervalSeconds: this.config.JOBS_POLL_SECONDS, batchSize },
      async (jobs) => {
        this.running += jobs.length;
        await Promise.all(
          jobs.map(async (job) => {
            try {
              await reg.handler(job.data as never, { id: job.id, retryCount: job.retryCount });
              this.metrics.jobs.inc({ queue: name, result: 'completed' });
            } catch (err) {
              this.metrics.jobs.inc({ queue: name, result: 'failed' });
              this.logger.warn(
                { err, job: name, jobId: job.id, retryCount: job.retryCount },
                'Job failed; it will be retried',
              );
              await boss.fail(name, job.id, { message: err instanceof Error ? err.message : String(err) });
            } finally {
              this.running -= 1;
            }
          }),
        );
        if (jobs.length === batchSize && loop.id && !this.stopping) boss.notifyWorker(loop.id);
      },
    );
    loops.push(loop.id);
  }

  /**
   * Wakes this instance's loops of a queue now instead of at their next poll (up to
   * JOBS_POLL_SECONDS away): for a job a request has just queued and committed, whose caller
   * waits on it (an import's status). Other instances still find it at their next poll.
   */
  wake(name: string): void {
    if (this.stopping || !this.boss) return;
    for (const id of this.loops.get(name) ?? []) this.boss.notifyWorker(id);
  }

  async send<T extends object>(name: string, data: T, options: SendOptions = {}): Promise<string | null> {
    if (!this.registrations.has(name)) throw new Error(`Job ${name} has no registered handler`);
    const em = options.em;
    return this.requireBoss().send(name, data, {
      startAfter: options.startAfter,
      singletonKey: options.singletonKey,
      // pg-boss refuses a `priority` key whose value is not an integer, undefined included.
      ...(options.priority !== undefined ? { priority: options.priority } : {}),
      ...(em ? { db: transactionDb(em) } : {}),
    });
  }

  /** True once workers run (tests wait for it before expecting jobs to be processed). */
  get isRunning(): boolean {
    return this.started;
  }

  async onModuleDestroy(): Promise<void> {
    // Graceful: stop fetching, let running jobs finish (bounded), then close the pool.
    this.stopping = true;
    const busy = this.running > 0;
    await this.boss?.stop({ graceful: true, timeout: this.config.SHUTDOWN_TIMEOUT_MS });
    this.boss = undefined;
    if (!busy) return;
    // A loop that was running a job ends after it; pg-boss checks on its loops once a second
    // and lets them go. Closing returns after that, so nothing of the queue outlives the app.
    const deadline = Date.now() + this.config.SHUTDOWN_TIMEOUT_MS;
    while (this.running > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1100));
  }

  private requireBoss(): PgBoss {
    if (!this.boss) throw new Error('The job queue is not started');
    return this.boss;
  }
}
