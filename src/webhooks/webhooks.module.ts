import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookAttemptEntity } from './entities/webhook-attempt.entity';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookDeliveryJob } from './webhook-delivery.job';
import { WebhookDrain } from './webhook-drain';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookSender } from './webhook-sender';
import { WebhookSweepJob } from './webhook-sweep.job';
import { WebhooksDataOwner } from './webhooks-data.owner';
import { WebhooksController } from './webhooks.controller';
import { WebhookDrainRepository } from './webhook-drain.repository';
import { WebhooksRepository } from './webhooks.repository';
import { AnswersProblems } from '../common/errors/problem-codes';
import { WEBHOOKS_PROBLEMS } from './webhooks.problems';

/**
 * Signed webhooks (docs/webhooks.md): endpoints per site, every outbox event fanned out to the
 * endpoints subscribed to it, delivered by queued drains with retries, and a delivery log.
 * Modules need nothing from it: recording an event in their events file is enough.
 */
@AnswersProblems(WEBHOOKS_PROBLEMS)
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEndpointEntity, WebhookDeliveryEntity, WebhookAttemptEntity])],
  controllers: [WebhooksController, WebhookDeliveriesController],
  providers: [
    WebhooksRepository,
    WebhookDrainRepository,
    WebhookSender,
    WebhookEndpointsService,
    WebhookDeliveriesService,
    WebhookDrain,
    WebhookDeliveryJob,
    WebhookSweepJob,
    WebhooksDataOwner,
  ],
  exports: [WebhookEndpointsService],
})
export class WebhooksModule {}
