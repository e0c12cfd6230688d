import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueueService } from '../common/queue/queue.service';
import { WebhooksConfig } from './webhooks.config';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookDrainRepository } from './webhook-drain.repository';

export const WEBHOOK_SWEEP_JOB = 'webhooks.sweep';

/** Endpoints one sweep queues a drain for, and log rows one sweep removes at most. */
const SWEEP_ENDPOINTS = 1000;
const PRUNE_BATCH = 5000;
const PRUNE_BATCHES = 20;

/**
 * Every minute: queues a drain for each endpoint with deliveries due and none queued (the
 * drains schedule their own follow-ups; this catches one lost to a crash), and removes
 * finished deliveries older than WEBHOOK_LOG_RETENTION_DAYS with their attempts.
 */
@Injectable()
export class WebhookSweepJob implements OnModuleInit {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly queue: QueueService,
    private readonly dataSource: DataSource,
    private readonly repository: WebhookDrainRepository,
    private readonly deliveries: WebhookDeliveriesService,
    private readonly config: WebhooksConfig,
  ) {}

  onModuleInit(): void {
    this.queue.register(WEBHOOK_SWEEP_JOB, () => this.run(), { cron: '* * * * *', retryLimit: 0 });
  }

  async run(): Promise<void> {
    const em = this.dataSource.manager;
    for (const endpointId of await this.repository.endpointsDue(SWEEP_ENDPOINTS, em))
      await this.deliveries.kick(endpointId);
    let pruned = 0;
    for (let i = 0; i < PRUNE_BATCHES; i++) {
      const n = await this.repository.prune(em, this.config.WEBHOOK_LOG_RETENTION_DAYS, PRUNE_BATCH);
      pruned += n;
      if (n < PRUNE_BATCH) break;
    }
    if (pruned > 0) this.logger.log({ pruned }, 'Removed old webhook deliveries');
  }
}
