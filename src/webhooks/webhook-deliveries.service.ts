import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { NotFoundProblem } from '../common/errors/problems';
import { OutboxBatch, OutboxEvent, OutboxRelay } from '../common/outbox/outbox-relay.service';
import { Page } from '../common/pagination/page';
import { QueueService } from '../common/queue/queue.service';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { WebhooksConfig } from './webhooks.config';
import { WebhookDeliveryQueryDto } from './dto/webhook-delivery.dto';
import { WebhookAttemptEntity } from './entities/webhook-attempt.entity';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';
import { WEBHOOK_DELIVERY_JOB, WebhookDeliveryJobData } from './webhook-delivery.job';
import { envelope, subscribes } from './webhook-rules';
import { WebhooksRepository } from './webhooks.repository';

/**
 * Deliveries: every outbox event becomes one delivery per subscribed endpoint (in the relay's
 * transaction, with a drain job queued for each endpoint), and operators read and retry them.
 */
@Injectable()
export class WebhookDeliveriesService implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: OutboxRelay,
    private readonly queue: QueueService,
    private readonly repository: WebhooksRepository,
    private readonly config: WebhooksConfig,
  ) {}

  onModuleInit(): void {
    this.relay.subscribe('*', (em, event, batch) => this.fanOut(em, event, batch), {
      wants: async (em, event, batch) => (await this.targets(em, event, batch)).length > 0,
    });
  }

  /**
   * Seconds a delivery may stay pending before it is given up even if its retries are not spent
   * (an endpoint held back by its failures tries one delivery per step): the whole schedule with
   * its jitter, and a minute for the queue's own delays.
   */
  get windowSeconds(): number {
    return Math.ceil(this.config.WEBHOOK_RETRY_SCHEDULE.reduce((a, b) => a + b, 0) * 1.2) + 60;
  }

  /**
   * An outbox event, to every enabled endpoint of its site (or account) subscribed to it. In a
   * relay batch, each endpoint's drain is queued once, at the end of the batch: a job queued
   * per event was 40 % of the relay's time for nothing (bench/webhooks.js).
   */
  async fanOut(em: EntityManager, event: OutboxEvent, batch?: OutboxBatch): Promise<void> {
    const endpoints = await this.targets(em, event, batch);
    if (endpoints.length === 0) return;
    const body = envelope(event.name, event.createdAt, event.payload);
    const added = await this.repository.insertDeliveries(em, endpoints, event, body, this.windowSeconds);
    for (const endpointId of added) {
      if (batch) batch.once(`webhooks.drain:${endpointId}`, () => this.kick(endpointId, em));
      else await this.kick(endpointId, em);
    }
  }

  /**
   * The enabled endpoints subscribed to the event. In a relay batch, each site's (or account's)
   * endpoints are read once for all its events.
   */
  private async targets(
    em: EntityManager,
    event: OutboxEvent,
    batch?: OutboxBatch,
  ): Promise<Array<{ id: number; siteId: number; eventTypes: string[] }>> {
    const load = () => this.repository.enabledEndpoints(em, event.siteId, event.accountId);
    const scope = event.siteId === null ? `account:${event.accountId}` : `site:${event.siteId}`;
    const all = batch ? await batch.memo(`webhooks.endpoints:${scope}`, load) : await load();
    return all.filter((e) => subscribes(e.eventTypes, event.name));
  }

  /** Queues a drain of the endpoint (in `em`'s transaction when given); one waiting is enough. */
  async kick(endpointId: number, em?: EntityManager): Promise<void> {
    await this.queue.send<WebhookDeliveryJobData>(
      WEBHOOK_DELIVERY_JOB,
      { endpointId },
      { singletonKey: String(endpointId), em },
    );
  }

  async list(
    site: SiteContext,
    endpointId: number,
    query: WebhookDeliveryQueryDto,
  ): Promise<Page<WebhookDeliveryEntity>> {
    await this.endpointOrFail(site, endpointId);
    return this.repository.listDeliveries(site, endpointId, query);
  }

  async get(
    site: SiteContext,
    endpointId: number,
    id: number,
  ): Promise<{ delivery: WebhookDeliveryEntity; attempts: WebhookAttemptEntity[] }> {
    const delivery = await this.repository.findDelivery(site, endpointId, id);
    if (!delivery) throw new NotFoundProblem('Delivery');
    return { delivery, attempts: await this.repository.attemptsOf(delivery.id) };
  }

  /**
   * Sends a delivery again, whatever its state, with the same `webhook-id` (receivers that saw
   * it deduplicate): a new round of retries, from now, and the endpoint is tried at once.
   */
  async retry(site: SiteContext, endpointId: number, id: number): Promise<WebhookDeliveryEntity> {
    return this.dataSource.transaction(async (em) => {
      // The endpoint, then the delivery: the order a drain and a delete lock them in.
      await findInSiteOrFail(em, WebhookEndpointEntity, site, endpointId, 'Webhook', { lock: true });
      const delivery = await em.findOne(WebhookDeliveryEntity, {
        where: { id, endpointId, siteId: site.id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!delivery) throw new NotFoundProblem('Delivery');
      const now = new Date();
      Object.assign(delivery, {
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        expiresAt: new Date(now.getTime() + this.windowSeconds * 1000),
      });
      await em.save(delivery);
      await em.update(WebhookEndpointEntity, { id: endpointId }, { retryAt: null });
      await this.kick(endpointId, em);
      return delivery;
    });
  }

  private async endpointOrFail(site: SiteContext, id: number): Promise<WebhookEndpointEntity> {
    const endpoint = await this.repository.findEndpoint(site, id);
    if (!endpoint) throw new NotFoundProblem('Webhook');
    return endpoint;
  }
}
