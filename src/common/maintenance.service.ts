import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HttpConfig } from '../config/http.config';
import { JobsConfig } from '../config/jobs.config';
import { MaintenanceRepository } from './maintenance.repository';
import { AppMetrics } from './metrics/app-metrics';
import { QueueService } from './queue/queue.service';
import { RetentionRegistry } from './retention/retention.registry';

export const MAINTENANCE_JOB = 'maintenance.cleanup';

/** What one run did with one rule. */
export interface RetentionOutcome {
  rule: string;
  removed: number;
  batches: number;
  /** The run stopped at RETENTION_MAX_BATCHES with rows left for the next one. */
  capped: boolean;
  error?: string;
}

/**
 * Every 10 minutes: each retention rule (RetentionRegistry), in statements of at most
 * RETENTION_BATCH_SIZE rows, each committed on its own (no long lock), until one is short or
 * RETENTION_MAX_BATCHES ran; a failing rule is logged and the next one runs. pg-boss's cron makes
 * one job per tick for the whole cluster (docs/deployment.md, "Storage and retention").
 */
@Injectable()
export class MaintenanceService implements OnModuleInit {
  private readonly logger = new Logger('Maintenance');
  private readonly repository = new MaintenanceRepository();

  constructor(
    private readonly queue: QueueService,
    private readonly dataSource: DataSource,
    private readonly http: HttpConfig,
    private readonly jobs: JobsConfig,
    private readonly retention: RetentionRegistry,
    private readonly metrics: AppMetrics,
  ) {}

  onModuleInit(): void {
    const repo = this.repository;
    this.retention.register({
      name: 'idempotency.keys',
      table: 'idempotency_keys',
      setting: 'IDEMPOTENCY_TTL_SECONDS',
      what: 'stored answers of Idempotency-Key requests, once they no longer replay',
      run: (db, limit) => repo.deleteExpiredIdempotencyKeys(db, this.http.IDEMPOTENCY_TTL_SECONDS, limit),
    });
    this.retention.register({
      name: 'rate-limit.windows',
      table: 'rate_limits',
      setting: null,
      what: 'rate-limit windows that ended and block no one',
      run: (db, limit) => repo.deleteEndedRateLimits(db, limit),
    });
    this.retention.register({
      name: 'outbox.events',
      table: 'outbox_events',
      setting: 'OUTBOX_RETENTION_DAYS',
      what: 'events dispatched to their subscribers (parked and pending ones stay)',
      run: (db, limit) => repo.deleteOldDispatchedEvents(db, this.jobs.OUTBOX_RETENTION_DAYS, limit),
    });
    this.queue.register(MAINTENANCE_JOB, async () => void (await this.cleanup()), {
      cron: '*/10 * * * *',
      retryLimit: 1,
    });
  }

  /** Runs every rule once (the job's handler). */
  async cleanup(): Promise<RetentionOutcome[]> {
    const outcomes: RetentionOutcome[] = [];
    for (const rule of this.retention.list()) {
      const outcome: RetentionOutcome = { rule: rule.name, removed: 0, batches: 0, capped: false };
      const size = this.jobs.RETENTION_BATCH_SIZE;
      try {
        for (;;) {
          const n = await rule.run(this.dataSource, size);
          outcome.batches += 1;
          outcome.removed += n;
          if (n > 0) this.metrics.retentionRows.inc({ rule: rule.name }, n);
          if (n < size) break;
          if (outcome.batches >= this.jobs.RETENTION_MAX_BATCHES) {
            outcome.capped = true;
            break;
          }
        }
        this.metrics.retentionLastRun.set({ rule: rule.name }, Date.now() / 1000);
      } catch (err) {
        outcome.error = err instanceof Error ? err.message : String(err);
        this.logger.error({ err, rule: rule.name, removed: outcome.removed }, 'Retention rule failed');
      }
      if (outcome.removed > 0)
        this.logger.log({ rule: rule.name, removed: outcome.removed, capped: outcome.capped }, 'Removed old rows');
      outcomes.push(outcome);
    }
    return outcomes;
  }
}
