import { Injectable, Logger } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { MetricsConfig } from '../../config/metrics.config';
import { fenceHolds, fenceWarning } from '../internals/fence';
import { POOL_ACQUIRE_TIMER, poolOf, timeConnect } from '../internals/pg-pool';
import { StateMetrics, StateSnapshot } from './state-metrics';

export const METRIC_PREFIX = 'sitebase_';

/** Whether this instance exposes metrics at all (a token for the main port, or a port of its own). */
export function metricsEnabled(config: MetricsConfig): boolean {
  return config.METRICS_TOKEN !== '' || config.METRICS_PORT > 0;
}

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const ACQUIRE_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * The app's Prometheus metrics (docs/operations.md lists them). One registry per app, not
 * prom-client's global one: tests start several apps in one process. Counters are this
 * process's since it started; the gauges read from the database are the same for every
 * instance, so a cluster's aggregate takes their maximum rather than their sum.
 */
@Injectable()
export class AppMetrics {
  readonly registry = new Registry();
  readonly enabled: boolean;

  readonly httpRequests = new Counter({
    name: `${METRIC_PREFIX}http_requests_total`,
    help: 'HTTP requests answered, by method, route template and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: 'Time from the request arriving to its response finishing, by method, route template and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  readonly httpErrors = new Counter({
    name: `${METRIC_PREFIX}http_server_errors_total`,
    help: 'Responses with a 5xx status, by method and route template',
    labelNames: ['method', 'route'] as const,
    registers: [this.registry],
  });
  readonly jobs = new Counter({
    name: `${METRIC_PREFIX}queue_jobs_processed_total`,
    help: 'Jobs this process ran, by queue and result (completed, failed: the handler threw and the job is retried or given up)',
    labelNames: ['queue', 'result'] as const,
    registers: [this.registry],
  });
  readonly outboxFailures = new Counter({
    name: `${METRIC_PREFIX}outbox_delivery_failures_total`,
    help: 'Failed attempts to hand an outbox event to its subscribers (each is retried with backoff, or parked)',
    registers: [this.registry],
  });
  readonly outboxParked = new Counter({
    name: `${METRIC_PREFIX}outbox_events_parked_total`,
    help: 'Outbox events this process parked: their delivery failed OUTBOX_MAX_ATTEMPTS times and is no longer retried',
    registers: [this.registry],
  });
  readonly webhookAttempts = new Counter({
    name: `${METRIC_PREFIX}webhook_attempts_total`,
    help: 'Webhook delivery attempts this process made, by result (success, failure)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly webhookDeliveriesFailed = new Counter({
    name: `${METRIC_PREFIX}webhook_deliveries_failed_total`,
    help: 'Webhook deliveries given up (last retry failed, or the retry window passed)',
    registers: [this.registry],
  });
  readonly emailDeliveries = new Counter({
    name: `${METRIC_PREFIX}email_deliveries_total`,
    help: 'Mail messages handed to SMTP by this process, by outcome (sent, deferred: refused for now and retried, failed: given up)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly retentionRows = new Counter({
    name: `${METRIC_PREFIX}retention_rows_total`,
    help: 'Rows the maintenance job of this process removed or trimmed, by retention rule (docs/deployment.md)',
    labelNames: ['rule'] as const,
    registers: [this.registry],
  });
  readonly retentionLastRun = new Gauge({
    name: `${METRIC_PREFIX}retention_last_run_timestamp_seconds`,
    help: 'When a retention rule last ran to its end without an error in this process (Unix seconds), by rule',
    labelNames: ['rule'] as const,
    // The latest run of any instance is the cluster's.
    aggregator: 'max',
    registers: [this.registry],
  });
  readonly poolAcquire = new Histogram({
    name: `${METRIC_PREFIX}db_pool_acquire_seconds`,
    help: 'Time a query waited for a database connection from the pool (including opening one)',
    buckets: ACQUIRE_BUCKETS,
    registers: [this.registry],
  });

  constructor(
    config: MetricsConfig,
    private readonly dataSource: DataSource,
    private readonly state: StateMetrics,
  ) {
    this.enabled = metricsEnabled(config);
    if (!this.enabled) return;
    collectDefaultMetrics({ register: this.registry, prefix: METRIC_PREFIX });
    this.poolGauges();
    this.stateGauges();
    this.timePoolAcquire();
  }

  /** The text a scrape gets (this process only). */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  private pool(): Pool | undefined {
    return poolOf(this.dataSource);
  }

  private poolGauges(): void {
    const pool = () => this.pool();
    const gauge = (name: string, help: string, read: (p: Pool) => number) =>
      new Gauge({
        name: `${METRIC_PREFIX}db_pool_${name}`,
        help,
        registers: [this.registry],
        collect() {
          const p = pool();
          this.set(p ? read(p) : 0);
        },
      });
    gauge('connections', 'Connections the database pool holds (idle and in use)', (p) => p.totalCount);
    gauge('idle', 'Idle connections in the database pool', (p) => p.idleCount);
    gauge('waiting', 'Queries waiting for a connection from the database pool', (p) => p.waitingCount);
  }

  /**
   * Times every wait for a connection from the pool (TypeORM asks for one per query runner):
   * what a saturated pool (DB_POOL_SIZE) adds to every request. The wrapper of the pool's
   * connect is fenced (src/common/internals/pg-pool.ts).
   */
  private timePoolAcquire(): void {
    const pool = this.pool();
    if (!pool || !fenceHolds(POOL_ACQUIRE_TIMER, fenceWarning(new Logger('Fences')))) return;
    timeConnect(pool, () => this.poolAcquire.startTimer());
  }

  private stateGauges(): void {
    const state = this.state;
    const registry = this.registry;
    const gauge = <L extends string>(
      name: string,
      help: string,
      set: (g: Gauge<L>, s: StateSnapshot) => void,
      labelNames: readonly L[] = [],
    ) =>
      new Gauge<L>({
        name: `${METRIC_PREFIX}${name}`,
        help,
        labelNames,
        // Every instance reads the same rows: a cluster's aggregate is one reading, not N.
        aggregator: 'max',
        registers: [registry],
        async collect() {
          set(this, await state.snapshot());
        },
      });
    gauge(
      'queue_jobs_waiting',
      'Jobs created or waiting for a retry, by queue (including jobs scheduled for later)',
      (g, s) => {
        g.reset();
        for (const q of s.queues) g.set({ queue: q.queue }, q.waiting);
      },
      ['queue'],
    );
    gauge(
      'queue_oldest_due_job_age_seconds',
      'How long the longest-waiting job that is due has waited to be picked up, by queue',
      (g, s) => {
        g.reset();
        for (const q of s.queues) g.set({ queue: q.queue }, q.oldestDueSeconds);
      },
      ['queue'],
    );
    gauge('outbox_events_pending', 'Outbox events not yet dispatched (nor parked)', (g, s) => g.set(s.outboxPending));
    gauge('outbox_events_parked', 'Outbox events parked, waiting for an operator to re-drive them', (g, s) =>
      g.set(s.outboxParked),
    );
    gauge('outbox_lag_seconds', 'Age of the oldest outbox event not yet dispatched (0: none waiting)', (g, s) =>
      g.set(s.outboxOldestSeconds),
    );
    gauge('webhook_deliveries_pending', 'Webhook deliveries waiting for a first attempt or a retry', (g, s) =>
      g.set(s.webhookDeliveriesPending),
    );
    gauge('email_messages_unsent', 'Mail messages queued or being sent', (g, s) => g.set(s.emailMessagesUnsent));
    gauge('campaigns_sending', 'Newsletter campaigns in the sending state', (g, s) => g.set(s.campaignsSending));
    gauge(
      'campaign_recipients_recorded',
      'Recipients handed to the email module so far, summed over the campaigns that are sending',
      (g, s) => g.set(s.campaignRecipientsRecorded),
    );
    gauge('campaign_audience', 'Audience of the campaigns that are sending (counted when each send started)', (g, s) =>
      g.set(s.campaignAudience),
    );
  }
}
