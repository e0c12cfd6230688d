import type { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { AppMetrics } from '../metrics/app-metrics';
import { describeFailure, retryDelaySeconds } from './outbox-failure';
import { OutboxRepository } from './outbox.repository';

/** A claimed event, as much of it as a failure needs. */
export interface Claimed {
  id: number;
  name: string;
  attempts: number;
}

/** A failed attempt counted, to be logged and measured once its transaction commits. */
export interface Charged extends Claimed {
  parked: boolean;
  retryAt: Date | null;
  error: string;
}

/**
 * The outbox relay's bookkeeping of failed deliveries (docs/foundation.md, "Events, jobs and the
 * outbox"): each failed attempt is counted on its event, retried after a backoff or parked after
 * OUTBOX_MAX_ATTEMPTS, and logged and measured once that count has committed.
 */
export class OutboxRetries {
  private readonly repository = new OutboxRepository();

  constructor(
    private readonly dataSource: DataSource,
    private readonly maxAttempts: number,
    private readonly metrics: AppMetrics,
    private readonly logger: Logger,
  ) {}

  /** Counts a failed attempt of events the caller holds locked: retried after a backoff, or parked. */
  async charge(em: EntityManager, events: Claimed[], err: unknown, now: Date): Promise<Charged[]> {
    const error = describeFailure(err);
    const max = this.maxAttempts;
    const charged = events.map((e): Charged => {
      const attempts = e.attempts + 1;
      const parked = attempts >= max;
      const retryAt = parked ? null : new Date(now.getTime() + retryDelaySeconds(attempts) * 1000);
      return { id: e.id, name: e.name, attempts, parked, retryAt, error };
    });
    await this.repository.recordFailures(em, charged, error, now);
    return charged;
  }

  /** Counts a failed attempt in a transaction of its own, after the batch that failed rolled back. */
  async chargeApart(ids: number[], err: unknown, now: Date): Promise<void> {
    const charged = await this.dataSource.transaction(async (em) => {
      // Still pending and not in another instance's batch: that one counts its own failures.
      const rows = await this.repository.lockPending(em, ids);
      return rows.length ? this.charge(em, rows, err, now) : [];
    });
    this.report(charged);
  }

  /** One line and a count per failed attempt that committed: the parking one at error, no stack or payload. */
  report(charged: Charged[]): void {
    for (const { id, name, attempts, parked, retryAt, error } of charged) {
      this.metrics.outboxFailures.inc();
      const fields = { eventId: id, event: name, attempts, error };
      if (parked) {
        this.metrics.outboxParked.inc();
        this.logger.error(fields, 'Outbox event parked: its delivery kept failing; re-drive it once fixed');
      } else {
        this.logger.warn({ ...fields, retryAt }, 'Outbox event delivery failed; it will be retried');
      }
    }
  }
}
