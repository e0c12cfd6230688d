import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import {
  applyKeysetShape,
  KeysetColumn,
  keysetPage,
  keysetParameters,
  keysetShape,
  Page,
} from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { ShapedReads } from '../database/fast-read';
import { sql } from '../database/sql';
import { WebhookDeliveryQueryDto } from './dto/webhook-delivery.dto';
import { WebhookEndpointQueryDto } from './dto/webhook-endpoint.dto';
import { WebhookAttemptEntity } from './entities/webhook-attempt.entity';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';

const BY_ID: KeysetColumn[] = [{ expr: 'x.id', type: 'number' }];

/** Delivery columns a list shows: everything but the payload. */
const DELIVERY_SUMMARY: Array<keyof WebhookDeliveryEntity> = [
  'id',
  'siteId',
  'endpointId',
  'eventId',
  'eventType',
  'status',
  'attempts',
  'nextAttemptAt',
  'lastAttemptAt',
  'lastStatusCode',
  'lastErrorKind',
  'lastError',
  'deliveredAt',
  'createdAt',
];

/**
 * Webhook reads on the fast path (docs/performance.md), the fan-out's set-based statements (one
 * statement for a batch, never one per row) and the account's and user's deletion. The drain's
 * and the sweep's statements are in webhook-drain.repository.ts.
 */
@Injectable()
export class WebhooksRepository {
  private readonly endpointList = new ShapedReads<WebhookEndpointEntity>();
  private readonly endpointOne = new ShapedReads<WebhookEndpointEntity>();
  private readonly deliveryList = new ShapedReads<WebhookDeliveryEntity>();
  private readonly deliveryOne = new ShapedReads<WebhookDeliveryEntity>();

  constructor(
    @InjectRepository(WebhookEndpointEntity) private readonly endpointRows: Repository<WebhookEndpointEntity>,
    @InjectRepository(WebhookDeliveryEntity) private readonly deliveryRows: Repository<WebhookDeliveryEntity>,
    @InjectRepository(WebhookAttemptEntity) private readonly attemptRows: Repository<WebhookAttemptEntity>,
  ) {}

  async listEndpoints(site: SiteContext, query: WebhookEndpointQueryDto): Promise<Page<WebhookEndpointEntity>> {
    const params = { siteId: site.id, status: query.status, ...keysetParameters(BY_ID, query) };
    const shape = { ...keysetShape(query), status: Boolean(query.status) };
    const { entities } = await this.endpointList.read(shape, params, (s) => {
      const qb = this.endpointRows.createQueryBuilder('x').where('x.site_id = :siteId');
      if (s.status) qb.andWhere('x.status = :status');
      return applyKeysetShape(qb, BY_ID, s);
    });
    return keysetPage(entities, query.limit, (e) => [e.id]);
  }

  async findEndpoint(site: SiteContext, id: number): Promise<WebhookEndpointEntity | undefined> {
    const { entities } = await this.endpointOne.read({}, { siteId: site.id, id }, () =>
      this.endpointRows.createQueryBuilder('x').where('x.site_id = :siteId').andWhere('x.id = :id').limit(1),
    );
    return entities[0];
  }

  countEndpoints(em: EntityManager, siteId: number): Promise<number> {
    return em.count(WebhookEndpointEntity, { where: { siteId } });
  }

  async listDeliveries(
    site: SiteContext,
    endpointId: number,
    query: WebhookDeliveryQueryDto,
  ): Promise<Page<WebhookDeliveryEntity>> {
    const params = { siteId: site.id, endpointId, status: query.status, ...keysetParameters(BY_ID, query) };
    const shape = { ...keysetShape(query), status: Boolean(query.status) };
    const { entities } = await this.deliveryList.read(shape, params, (s) => {
      const qb = this.deliveryRows
        .createQueryBuilder('x')
        .select(DELIVERY_SUMMARY.map((c) => `x.${c}`))
        .where('x.endpoint_id = :endpointId')
        .andWhere('x.site_id = :siteId');
      if (s.status) qb.andWhere('x.status = :status');
      return applyKeysetShape(qb, BY_ID, s);
    });
    return keysetPage(entities, query.limit, (d) => [d.id]);
  }

  async findDelivery(site: SiteContext, endpointId: number, id: number): Promise<WebhookDeliveryEntity | undefined> {
    const { entities } = await this.deliveryOne.read({}, { siteId: site.id, endpointId, id }, () =>
      this.deliveryRows
        .createQueryBuilder('x')
        .where('x.id = :id')
        .andWhere('x.endpoint_id = :endpointId')
        .andWhere('x.site_id = :siteId')
        .limit(1),
    );
    return entities[0];
  }

  attemptsOf(deliveryId: number): Promise<WebhookAttemptEntity[]> {
    return this.attemptRows.find({ where: { deliveryId }, order: { id: 'ASC' } });
  }

  /**
   * The enabled endpoints an event goes to: its site's, or for an account-level event (no site)
   * those of every site of the account. Subscriptions are matched by the caller.
   */
  async enabledEndpoints(
    em: EntityManager,
    siteId: number | null,
    accountId: number,
  ): Promise<Array<{ id: number; siteId: number; eventTypes: string[] }>> {
    const { rows } = await sql<{ id: number; siteId: number; eventTypes: string[] }>(
      em,
      siteId === null
        ? `SELECT e.id, e.site_id AS "siteId", e.event_types AS "eventTypes" FROM webhook_endpoints e
            JOIN sites s ON s.id = e.site_id WHERE s.account_id = $1 AND e.status = 'enabled'`
        : `SELECT id, site_id AS "siteId", event_types AS "eventTypes" FROM webhook_endpoints
            WHERE site_id = $1 AND status = 'enabled'`,
      [siteId ?? accountId],
      { bigints: ['id', 'siteId'] },
    );
    return rows;
  }

  /**
   * One delivery of the event per endpoint, in one statement; a second relay of the same event
   * adds none (unique endpoint and event). Answers the endpoints that got a new one.
   */
  async insertDeliveries(
    em: EntityManager,
    endpoints: Array<{ id: number; siteId: number }>,
    event: { id: number; name: string },
    payload: string,
    windowSeconds: number,
  ): Promise<number[]> {
    const { rows } = await sql<{ endpointId: number }>(
      em,
      `INSERT INTO webhook_deliveries
         (site_id, endpoint_id, event_id, event_type, payload, status, next_attempt_at, expires_at)
       SELECT w.site_id, w.endpoint_id, $3, $4, $5, 'pending', now(), now() + make_interval(secs => $6)
         FROM unnest($1::bigint[], $2::bigint[]) AS w(site_id, endpoint_id)
       ON CONFLICT (endpoint_id, event_id) DO NOTHING
       RETURNING endpoint_id AS "endpointId"`,
      [endpoints.map((e) => e.siteId), endpoints.map((e) => e.id), event.id, event.name, payload, windowSeconds],
      { bigints: ['endpointId'] },
    );
    return rows.map((r) => r.endpointId);
  }

  /** Pending deliveries of the account's sites (an account purge drops them, and says so). */
  async pendingOfAccount(em: EntityManager, accountId: number): Promise<Array<{ eventType: string; n: number }>> {
    const { rows } = await sql<{ eventType: string; n: number }>(
      em,
      `SELECT d.event_type AS "eventType", count(*)::int AS n FROM webhook_deliveries d
         JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN sites s ON s.id = e.site_id
        WHERE s.account_id = $1 AND d.status = 'pending' GROUP BY d.event_type ORDER BY d.event_type`,
      [accountId],
    );
    return rows;
  }

  /**
   * Takes an address out of the bodies of the site's deliveries (a user's erasure): only
   * `email.*` events carry one. The signature of a delivery already sent no longer matches
   * its stored body, which is never sent again except by a retry, which signs anew.
   */
  async eraseAddress(em: EntityManager, siteId: number, email: string): Promise<number> {
    const { rowCount } = await sql(
      em,
      `UPDATE webhook_deliveries SET payload = replace(payload, $2, '[erased]'), updated_at = now()
        WHERE site_id = $1 AND event_type LIKE 'email.%' AND position($2 in payload) > 0`,
      [siteId, JSON.stringify(email).slice(1, -1)],
    );
    return rowCount;
  }
}
