import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppMetrics } from '../common/metrics/app-metrics';
import { recordEvent } from '../common/outbox/record-event';
import { QueueService } from '../common/queue/queue.service';
import { WebhooksConfig } from './webhooks.config';
import { webhookIdOf } from './dto/webhook-delivery.dto';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';
import { DRAIN_BUDGET_MS, WEBHOOK_DELIVERY_JOB, WebhookDeliveryJobData } from './webhook-delivery.job';
import { nextAttempt } from './webhook-retry';
import { signingSecrets } from './webhook-rules';
import { AttemptResult, WebhookSender } from './webhook-sender';
import { webhookHeaders } from './webhook-signature';
import { WEBHOOK_EVENTS } from './webhooks.events';
import { DeliveryOutcome, WebhookDrainRepository } from './webhook-drain.repository';

/** Deliveries one drain reads and sends before writing their outcomes. */
const BATCH = 100;
/** Failures in a row, answered by a reachable endpoint, after which a drain stops. */
const MAX_FAILURES_IN_A_ROW = 3;
/** The longest an endpoint that keeps failing is left alone between probes, in seconds. */
const MAX_PROBE_DELAY = 3600;

/**
 * Sends one endpoint's due deliveries, one at a time and oldest first, so a healthy endpoint
 * receives its events in the order they happened (docs/webhooks.md):
 *
 * - Each delivery is retried on its own schedule (WEBHOOK_RETRY_SCHEDULE, with jitter) and
 *   given up after its last retry or once its retry window (about a day) has passed.
 * - An endpoint that cannot be reached (timeout, refused connection, DNS, TLS) or that fails
 *   three in a row is left alone until `retryAt`, which follows the same schedule counted in
 *   failed probes since its last success, at most an hour apart: a dead endpoint gets one probe
 *   per step, not one request per waiting event, and its events go out in order once it
 *   answers again.
 * - An endpoint failing without a success for WEBHOOK_DISABLE_AFTER_SECONDS is disabled, with
 *   a `webhook.endpoint_disabled` event.
 * - Outcomes are written once per batch (two statements); a crash before that sends the batch
 *   again with the same `webhook-id`s (at least once).
 */
@Injectable()
export class WebhookDrain {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: WebhookDrainRepository,
    private readonly sender: WebhookSender,
    private readonly queue: QueueService,
    private readonly config: WebhooksConfig,
    private readonly metrics: AppMetrics,
  ) {}

  async run(endpointId: number): Promise<void> {
    const deadline = Date.now() + DRAIN_BUDGET_MS;
    const em = this.dataSource.manager;
    for (;;) {
      const endpoint = await this.repository.endpointById(em, endpointId);
      if (!endpoint || endpoint.status !== 'enabled') return;
      if (endpoint.retryAt && endpoint.retryAt.getTime() > Date.now()) {
        // Another drain was queued while this endpoint was failing: the one due at retryAt runs then.
        await this.schedule(endpointId, endpoint.retryAt);
        return;
      }
      const expired = await this.repository.expire(em, endpointId);
      if (expired > 0) this.metrics.webhookDeliveriesFailed.inc(expired);
      const due = await this.repository.dueDeliveries(em, endpointId, BATCH);
      if (due.length === 0) {
        // Retries waiting for their time: a drain then.
        const next = await this.repository.nextPendingAt(em, endpointId);
        if (next) await this.schedule(endpointId, next);
        return;
      }
      const outcomes: DeliveryOutcome[] = [];
      let inARow = 0;
      let stop = false;
      for (const d of due) {
        const attemptedAt = new Date();
        const result = await this.sender.send({
          url: endpoint.url,
          headers: {
            ...endpoint.headers,
            ...webhookHeaders(signingSecrets(endpoint, attemptedAt), webhookIdOf(d.id), attemptedAt, d.payload),
          },
          body: d.payload,
        });
        const attempts = d.attempts + 1;
        if (result.ok) {
          outcomes.push({ deliveryId: d.id, attemptedAt, result, status: 'succeeded', attempts, nextAttemptAt: null });
          inARow = 0;
          continue;
        }
        const next = nextAttempt(this.config.WEBHOOK_RETRY_SCHEDULE, attempts);
        outcomes.push({
          deliveryId: d.id,
          attemptedAt,
          result,
          status: next.retry ? 'pending' : 'failed',
          attempts,
          nextAttemptAt: next.retry ? new Date(attemptedAt.getTime() + next.delaySeconds * 1000) : null,
        });
        inARow += 1;
        if (unreachable(result) || inARow >= MAX_FAILURES_IN_A_ROW) {
          stop = true;
          break;
        }
      }
      const retryAt = await this.settle(endpoint, outcomes, stop);
      for (const o of outcomes) {
        this.metrics.webhookAttempts.inc({ result: o.status === 'succeeded' ? 'success' : 'failure' });
        if (o.status === 'failed') this.metrics.webhookDeliveriesFailed.inc();
      }
      if (retryAt) return this.schedule(endpointId, retryAt);
      if (stop) return; // disabled
      if (Date.now() > deadline) return this.schedule(endpointId);
    }
  }

  /**
   * Writes a batch's attempts and the endpoint's health in one transaction. Answers when the
   * endpoint may be tried again if the drain stopped on failures (null otherwise, or when the
   * endpoint was disabled).
   */
  private async settle(
    endpoint: WebhookEndpointEntity,
    outcomes: DeliveryOutcome[],
    stop: boolean,
  ): Promise<Date | null> {
    let { consecutiveFailures, failingSince, lastSuccessAt, lastFailureAt } = endpoint;
    for (const o of outcomes) {
      if (o.status === 'succeeded') {
        consecutiveFailures = 0;
        failingSince = null;
        lastSuccessAt = o.attemptedAt;
      } else {
        failingSince ??= o.attemptedAt;
        lastFailureAt = o.attemptedAt;
      }
    }
    // The backoff counts probes that failed (drains that stopped), not attempts: an endpoint
    // answering 503 is left alone exactly as long as one that does not answer at all.
    if (stop) consecutiveFailures += 1;
    const now = new Date();
    const disableAfter = this.config.WEBHOOK_DISABLE_AFTER_SECONDS * 1000;
    const disable = failingSince !== null && now.getTime() - failingSince.getTime() >= disableAfter;
    let retryAt: Date | null = null;
    if (stop && !disable) {
      const schedule = this.config.WEBHOOK_RETRY_SCHEDULE;
      const step = nextAttempt(schedule, Math.min(consecutiveFailures, schedule.length));
      // Probed at least hourly, so an endpoint that comes back is found well within its events' retry window.
      const delay = Math.min(step.retry ? step.delaySeconds : MAX_PROBE_DELAY, MAX_PROBE_DELAY);
      retryAt = new Date(now.getTime() + delay * 1000);
      // The delivery that stopped the drain goes first when the endpoint is tried again, so the
      // events keep their order (its own jittered time could fall after later events').
      const last = outcomes[outcomes.length - 1];
      if (last.status === 'pending') last.nextAttemptAt = retryAt;
    }
    const disabled = await this.dataSource.transaction(async (em) => {
      // The endpoint first, then its deliveries: the order a delete (endpoint, then cascade) locks them in.
      const current = await em.findOne(WebhookEndpointEntity, {
        where: { id: endpoint.id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!current) return false; // deleted meanwhile, with its deliveries
      await this.repository.recordOutcomes(em, outcomes);
      // A PATCH that disabled it meanwhile wins: the attempts are logged, its health is left alone.
      if (current.status !== 'enabled') return false;
      await em.update(
        WebhookEndpointEntity,
        { id: endpoint.id },
        {
          consecutiveFailures,
          failingSince,
          retryAt,
          lastSuccessAt,
          lastFailureAt,
          ...(disable ? { status: 'disabled' as const, disabledReason: 'failing' as const, disabledAt: now } : {}),
        },
      );
      if (!disable || !failingSince) return false;
      const accountId = await this.repository.accountOfSite(em, endpoint.siteId);
      await recordEvent(em, { id: endpoint.siteId, accountId }, WEBHOOK_EVENTS.endpointDisabled, {
        id: endpoint.id,
        url: endpoint.url,
        failingSince: failingSince.toISOString(),
        lastError: outcomes[outcomes.length - 1].result.error,
      });
      return true;
    });
    if (disabled)
      this.logger.warn({ endpointId: endpoint.id, failingSince }, 'Webhook endpoint disabled: it kept failing');
    return retryAt;
  }

  /** Queues a drain of the endpoint (now, or at `at`); one is enough, so a refusal is fine. */
  async schedule(endpointId: number, at?: Date): Promise<void> {
    await this.queue.send<WebhookDeliveryJobData>(
      WEBHOOK_DELIVERY_JOB,
      { endpointId },
      { singletonKey: String(endpointId), startAfter: at },
    );
  }
}

/** The endpoint did not answer at all: trying its next event now would fail the same way. */
function unreachable(result: AttemptResult): boolean {
  return result.errorKind !== 'http_status' && result.errorKind !== 'redirect';
}
