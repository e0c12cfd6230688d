import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ConflictProblem, NotFoundProblem, ValidationProblem } from '../common/errors/problems';
import { Page } from '../common/pagination/page';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { WebhooksConfig } from './webhooks.config';
import { namedXactLock } from '../database/sql';
import { webhookIdOf } from './dto/webhook-delivery.dto';
import {
  CreateWebhookEndpointDto,
  UpdateWebhookEndpointDto,
  WebhookEndpointQueryDto,
} from './dto/webhook-endpoint.dto';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';
import { resolveTarget, WebhookTargetError } from './webhook-address';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { envelope, mergeHeaders, signingSecrets, urlProblem } from './webhook-rules';
import { AttemptResult, WebhookSender } from './webhook-sender';
import { newWebhookSecret, webhookHeaders } from './webhook-signature';
import { WEBHOOK_EVENTS } from './webhooks.events';
import { WebhookDrainRepository } from './webhook-drain.repository';
import { WebhooksRepository } from './webhooks.repository';

/** Endpoints one site may have. */
export const MAX_ENDPOINTS_PER_SITE = 50;

/** Endpoints of a site: their settings, secrets and the test send (docs/webhooks.md). */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: WebhooksRepository,
    private readonly drain: WebhookDrainRepository,
    private readonly deliveries: WebhookDeliveriesService,
    private readonly sender: WebhookSender,
    private readonly config: WebhooksConfig,
  ) {}

  list(site: SiteContext, query: WebhookEndpointQueryDto): Promise<Page<WebhookEndpointEntity>> {
    return this.repository.listEndpoints(site, query);
  }

  async get(site: SiteContext, id: number): Promise<WebhookEndpointEntity> {
    const endpoint = await this.repository.findEndpoint(site, id);
    if (!endpoint) throw new NotFoundProblem('Webhook');
    return endpoint;
  }

  async create(site: SiteContext, dto: CreateWebhookEndpointDto): Promise<WebhookEndpointEntity> {
    await this.checkUrl(dto.url);
    // Nothing is stored yet: the masked placeholder cannot stand for a value.
    const given = mergeHeaders({}, dto.headers ?? {});
    if ('error' in given) throw new ValidationProblem([given.error]);
    return this.dataSource.transaction(async (em) => {
      // Creates of one site take turns, so the limit holds under concurrency.
      await namedXactLock(em, `webhook_endpoints:${site.id}`);
      if ((await this.repository.countEndpoints(em, site.id)) >= MAX_ENDPOINTS_PER_SITE)
        throw new ConflictProblem(
          'limit_reached',
          `A site has at most ${MAX_ENDPOINTS_PER_SITE} webhook endpoints; delete one first`,
        );
      const status = dto.status ?? 'enabled';
      return em.save(
        em.create(WebhookEndpointEntity, {
          siteId: site.id,
          url: dto.url,
          description: dto.description ?? '',
          eventTypes: dto.eventTypes ?? ['*'],
          headers: given.headers,
          status,
          disabledReason: status === 'disabled' ? 'manual' : null,
          disabledAt: status === 'disabled' ? new Date() : null,
          secret: newWebhookSecret(),
        }),
      );
    });
  }

  async update(site: SiteContext, id: number, dto: UpdateWebhookEndpointDto): Promise<WebhookEndpointEntity> {
    if (dto.url !== undefined) await this.checkUrl(dto.url);
    return this.dataSource.transaction(async (em) => {
      const endpoint = await findInSiteOrFail(em, WebhookEndpointEntity, site, id, 'Webhook', { lock: true });
      const wasEnabled = endpoint.status === 'enabled';
      if (dto.url !== undefined) endpoint.url = dto.url;
      if (dto.description !== undefined) endpoint.description = dto.description;
      if (dto.eventTypes !== undefined) endpoint.eventTypes = dto.eventTypes;
      if (dto.headers !== undefined) {
        const merged = mergeHeaders(endpoint.headers, dto.headers);
        if ('error' in merged) throw new ValidationProblem([merged.error]);
        endpoint.headers = merged.headers;
      }
      if (dto.status === 'disabled' && wasEnabled)
        Object.assign(endpoint, { status: 'disabled', disabledReason: 'manual', disabledAt: new Date() });
      if (dto.status === 'enabled' && !wasEnabled)
        // A fresh start: the failures that disabled it are forgiven; waiting deliveries go out.
        Object.assign(endpoint, {
          status: 'enabled',
          disabledReason: null,
          disabledAt: null,
          failingSince: null,
          consecutiveFailures: 0,
          retryAt: null,
        });
      const saved = await em.save(endpoint);
      if (saved.status === 'enabled' && !wasEnabled) await this.deliveries.kick(saved.id, em);
      return saved;
    });
  }

  async remove(site: SiteContext, id: number): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      const endpoint = await findInSiteOrFail(em, WebhookEndpointEntity, site, id, 'Webhook', { lock: true });
      // Its deliveries and attempts go with it (foreign keys, on delete cascade).
      await em.delete(WebhookEndpointEntity, { id: endpoint.id });
    });
  }

  /**
   * A new secret; the previous one keeps signing beside it for WEBHOOK_SECRET_GRACE_SECONDS,
   * so receivers can switch without missing an event.
   */
  rotateSecret(site: SiteContext, id: number): Promise<WebhookEndpointEntity> {
    return this.dataSource.transaction(async (em) => {
      const endpoint = await findInSiteOrFail(em, WebhookEndpointEntity, site, id, 'Webhook', { lock: true });
      const grace = this.config.WEBHOOK_SECRET_GRACE_SECONDS;
      endpoint.previousSecret = grace > 0 ? endpoint.secret : null;
      endpoint.previousSecretExpiresAt = grace > 0 ? new Date(Date.now() + grace * 1000) : null;
      endpoint.secret = newWebhookSecret();
      return em.save(endpoint);
    });
  }

  /**
   * Sends a `webhook.test` event to the endpoint now, whether it is enabled or not, and answers
   * the outcome. It is logged as a delivery; it is not retried and does not count toward the
   * endpoint's failures.
   */
  async test(site: SiteContext, id: number): Promise<{ deliveryId: number; result: AttemptResult }> {
    const endpoint = await this.get(site, id);
    const now = new Date();
    const body = envelope(WEBHOOK_EVENTS.test.name, now, {
      endpointId: endpoint.id,
      message: 'A test event from Sitebase: this endpoint is reachable and the signature verifies.',
    });
    const delivery = await this.dataSource.getRepository(WebhookDeliveryEntity).save({
      siteId: site.id,
      endpointId: endpoint.id,
      eventId: null,
      eventType: WEBHOOK_EVENTS.test.name,
      payload: body,
      status: 'pending',
      nextAttemptAt: null,
      // Answered below; if this process dies first, the row is given up rather than left pending.
      expiresAt: new Date(now.getTime() + 60_000),
    });
    const result = await this.sender.send({
      url: endpoint.url,
      headers: {
        ...endpoint.headers,
        ...webhookHeaders(signingSecrets(endpoint, now), webhookIdOf(delivery.id), now, body),
      },
      body,
    });
    await this.dataSource.transaction((em) =>
      this.drain.recordOutcomes(em, [
        {
          deliveryId: delivery.id,
          attemptedAt: now,
          result,
          status: result.ok ? 'succeeded' : 'failed',
          attempts: 1,
          nextAttemptAt: null,
        },
      ]),
    );
    return { deliveryId: delivery.id, result };
  }

  /** The URL's rules, then its host: every address it resolves to must be public (unless allowed). */
  private async checkUrl(url: string): Promise<void> {
    const problem = urlProblem(url, this.config.WEBHOOKS_ALLOW_HTTP);
    if (problem) throw new ValidationProblem([{ path: 'url', message: problem }]);
    try {
      await resolveTarget(new URL(url).hostname, this.config.WEBHOOKS_ALLOW_PRIVATE);
    } catch (err) {
      if (!(err instanceof WebhookTargetError)) throw err;
      throw new ValidationProblem([
        {
          path: 'url',
          message:
            err.kind === 'blocked_address'
              ? `must be a public address: ${err.message}`
              : `must name a host that resolves: ${err.message}`,
        },
      ]);
    }
  }
}
