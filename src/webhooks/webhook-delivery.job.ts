import { forwardRef, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { QueueService } from '../common/queue/queue.service';
import { WebhooksConfig } from './webhooks.config';
import { WebhookDrain } from './webhook-drain';

export const WEBHOOK_DELIVERY_JOB = 'webhooks.deliver';

/** The job's payload: the endpoint whose due deliveries to send. */
export interface WebhookDeliveryJobData {
  endpointId: number;
}

/** Longest a drain may run before it hands over to a fresh job (the job expires well after). */
export const DRAIN_BUDGET_MS = 20_000;

/**
 * Sends an endpoint's due deliveries, oldest first (webhook-drain.ts). The queue is `stately`
 * with the endpoint as its key: one drain of an endpoint runs at a time (its events go out in
 * order) and at most one more waits, however many events arrive meanwhile.
 */
@Injectable()
export class WebhookDeliveryJob implements OnModuleInit {
  constructor(
    private readonly queue: QueueService,
    private readonly config: WebhooksConfig,
    @Inject(forwardRef(() => WebhookDrain)) private readonly drain: WebhookDrain,
  ) {}

  onModuleInit(): void {
    this.queue.register<WebhookDeliveryJobData>(WEBHOOK_DELIVERY_JOB, ({ endpointId }) => this.drain.run(endpointId), {
      policy: 'stately',
      concurrency: this.config.WEBHOOK_CONCURRENCY,
      // A drain records its own failures; a throw is a database error, retried soon.
      retryLimit: 10,
      retryDelaySeconds: 1,
      expireInSeconds: Math.ceil((DRAIN_BUDGET_MS + this.config.WEBHOOK_TIMEOUT_MS) / 1000) * 3,
    });
  }
}
