import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MetricsConfig } from '../../config/metrics.config';
import { sql } from '../../database/sql';

export interface QueueState {
  queue: string;
  /** Jobs created or waiting for a retry, due or not. */
  waiting: number;
  /** Seconds the longest-waiting due job has been due (0: none due). */
  oldestDueSeconds: number;
}

/** What the gauges read from the database at scrape time. */
export interface StateSnapshot {
  queues: QueueState[];
  outboxPending: number;
  /** Outbox events parked after their last attempt, until an operator re-drives them. */
  outboxParked: number;
  /** Age of the oldest undispatched outbox event, in seconds (0: none). */
  outboxOldestSeconds: number;
  webhookDeliveriesPending: number;
  emailMessagesUnsent: number;
  campaignsSending: number;
  /** Recipients handed to the email module so far, summed over the campaigns in `sending`. */
  campaignRecipientsRecorded: number;
  /** Their audiences, counted when each send started. */
  campaignAudience: number;
}

const EMPTY: StateSnapshot = {
  queues: [],
  outboxPending: 0,
  outboxParked: 0,
  outboxOldestSeconds: 0,
  webhookDeliveriesPending: 0,
  emailMessagesUnsent: 0,
  campaignsSending: 0,
  campaignRecipientsRecorded: 0,
  campaignAudience: 0,
};

/**
 * Reads the queue, outbox, webhook, mail and campaign gauges with a handful of statements that
 * each read one partial index (pg-boss's job_i11, outbox_events_pending_idx and _parked_idx,
 * webhook_deliveries_pending_idx, email_messages_unsent_idx, newsletter_campaigns_sending_idx),
 * at most once per METRICS_CACHE_MS however often and however many scrapers ask, so scrapes do
 * not load the database. A failed read keeps the last values (logged at warn).
 */
@Injectable()
export class StateMetrics {
  private readonly logger = new Logger('Metrics');
  private last: StateSnapshot = EMPTY;
  private readAt = 0;
  private reading?: Promise<StateSnapshot>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: MetricsConfig,
  ) {}

  snapshot(): Promise<StateSnapshot> {
    if (this.reading) return this.reading;
    if (this.readAt > 0 && Date.now() - this.readAt < this.config.METRICS_CACHE_MS) return Promise.resolve(this.last);
    this.reading = this.read()
      .then((s) => (this.last = s))
      .catch((err: Error) => {
        this.logger.warn(
          { error: err.message },
          'Metrics: reading the database gauges failed; keeping the last values',
        );
        return this.last;
      })
      .finally(() => {
        this.readAt = Date.now();
        this.reading = undefined;
      });
    return this.reading;
  }

  private async read(): Promise<StateSnapshot> {
    const ds = this.dataSource;
    // Every queue pg-boss knows, so a queue that emptied reads 0 rather than its last value.
    const queues = await sql<{ queue: string; waiting: number; oldest: number }>(
      ds,
      `SELECT q.name AS queue, COALESCE(j.waiting, 0)::int AS waiting, COALESCE(j.oldest, 0)::float8 AS oldest
         FROM pgboss.queue q
         LEFT JOIN (
           SELECT name, count(*) AS waiting,
                  EXTRACT(EPOCH FROM now() - min(start_after) FILTER (WHERE start_after <= now())) AS oldest
             FROM pgboss.job WHERE state < 'active' AND NOT blocked GROUP BY name
         ) j ON j.name = q.name
        ORDER BY q.name`,
    );
    const [outbox] = (
      await sql<{ pending: number; oldest: number; parked: number }>(
        ds,
        `SELECT count(*)::int AS pending,
                COALESCE(EXTRACT(EPOCH FROM now() - (
                  SELECT created_at FROM outbox_events WHERE dispatched_at IS NULL AND parked_at IS NULL
                   ORDER BY id LIMIT 1)), 0)::float8 AS oldest,
                (SELECT count(*) FROM outbox_events WHERE parked_at IS NOT NULL)::int AS parked
           FROM outbox_events WHERE dispatched_at IS NULL AND parked_at IS NULL`,
      )
    ).rows;
    const [counts] = (
      await sql<{ webhooks: number; mail: number; campaigns: number; recorded: number; audience: number }>(
        ds,
        `SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::int AS webhooks,
                (SELECT count(*) FROM email_messages WHERE status IN ('queued', 'sending'))::int AS mail,
                c.campaigns, c.recorded, c.audience
           FROM (SELECT count(*)::int AS campaigns, COALESCE(sum(recipient_count), 0)::float8 AS recorded,
                        COALESCE(sum(audience_count), 0)::float8 AS audience
                   FROM newsletter_campaigns WHERE status = 'sending') c`,
      )
    ).rows;
    return {
      queues: queues.rows.map((r) => ({ queue: r.queue, waiting: r.waiting, oldestDueSeconds: Math.max(0, r.oldest) })),
      outboxPending: outbox.pending,
      outboxParked: outbox.parked,
      outboxOldestSeconds: Math.max(0, outbox.oldest),
      webhookDeliveriesPending: counts.webhooks,
      emailMessagesUnsent: counts.mail,
      campaignsSending: counts.campaigns,
      campaignRecipientsRecorded: counts.recorded,
      campaignAudience: counts.audience,
    };
  }
}
