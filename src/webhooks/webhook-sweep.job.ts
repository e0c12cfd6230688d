import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueueService } from '../common/queue/queue.service';
import { RetentionRegistry } from '../common/retention/retention.registry';
import { WebhooksConfig } from './webhooks.config';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookDrainRepository } from './webhook-drain.repository';

export const WEBHOOK_SWEEP_JOB = 'webhooks.sweep';

/** Endpoints one sweep queues a drain for. */
const SWEEP_ENDPOINTS = 1000;

/**
 * Every minute: queues a drain for each endpoint with deliveries due and none queued (the
 * drains schedule their own follow-ups; this catches one lost to a crash). The delivery log's
 * retention (finished deliveries older than WEBHOOK_LOG_RETENTION_DAYS, with their attempts) is
 * a rule of the maintenance job.
 */
@Injectable()
export class WebhookSweepJob implements OnModuleInit {
  constructor(
    private readonly queue: QueueService,
    private readonly dataSource: DataSource,
    private readonly repository: WebhookDrainRepository,
    private readonly deliveries: WebhookDeliveriesService,
    private readonly config: WebhooksConfig,
    private readonly retention: RetentionRegistry,
  ) {}

  onModuleInit(): void {
    this.retention.register({
      name: 'webhooks.log',
      table: 'webhook_deliveries',
      setting: 'WEBHOOK_LOG_RETENTION_DAYS',
      what: 'finished deliveries, with their attempts (webhook_attempts, ON DELETE CASCADE)',
      run: (db, limit) => this.repository.prune(db.manager, this.config.WEBHOOK_LOG_RETENTION_DAYS, limit),
    });
    this.queue.register(WEBHOOK_SWEEP_JOB, () => this.run(), { cron: '* * * * *', retryLimit: 0 });
  }

  async run(): Promise<void> {
    const em = this.dataSource.manager;
    for (const endpointId of await this.repository.endpointsDue(SWEEP_ENDPOINTS, em))
      await this.deliveries.kick(endpointId);
  }
}
