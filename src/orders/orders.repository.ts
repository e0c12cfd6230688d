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
import { OrderQueryDto } from './dto/order.dto';
import { OrderLineEntity } from './entities/order-line.entity';
import { OrderShipmentEntity } from './entities/order-shipment.entity';
import { OrderEntity } from './entities/order.entity';

/** A new order's fields: what the service computed, before the database gives its id and number. */
export type NewOrder = Pick<
  OrderEntity,
  | 'siteId'
  | 'accountId'
  | 'userId'
  | 'currency'
  | 'subtotalAmount'
  | 'taxAmount'
  | 'totalAmount'
  | 'customerEmail'
  | 'customerName'
  | 'customerPhone'
  | 'shippingAddress'
  | 'metadata'
  | 'expiresAt'
>;

/** A new line's snapshot (its position is its index). */
export type NewOrderLine = Pick<
  OrderLineEntity,
  | 'productId'
  | 'variantId'
  | 'name'
  | 'sku'
  | 'unitAmount'
  | 'quantity'
  | 'taxCode'
  | 'taxBehavior'
  | 'taxRate'
  | 'subtotalAmount'
  | 'taxAmount'
  | 'totalAmount'
  | 'recurringInterval'
  | 'recurringIntervalCount'
>;

export interface OrderView {
  order: OrderEntity;
  lines: OrderLineEntity[];
  shipments: OrderShipmentEntity[];
}

/** Newest first: (created_at, id) descending, over the indexes that start with site_id. */
const NEWEST: KeysetColumn[] = [
  { expr: 'o.created_at', type: 'timestamp' },
  { expr: 'o.id', type: 'number' },
];

/**
 * The orders' reads on the fast path (docs/performance.md) and the statements that outgrow a
 * method: the new order with the site's next number, the expiry sweep. A site user's holds (the
 * pending-order cap, the hold limits) are in order-holds.repository.ts, the provider's
 * notifications in fulfillment-notifications.repository.ts, the anonymising purge in
 * orders-erasure.repository.ts.
 */
@Injectable()
export class OrdersRepository {
  private readonly orderList = new ShapedReads<OrderEntity>();
  private readonly orderOne = new ShapedReads<OrderEntity>();
  private readonly orderLines = new ShapedReads<OrderLineEntity>();
  private readonly orderShipments = new ShapedReads<OrderShipmentEntity>();

  constructor(
    @InjectRepository(OrderEntity) private readonly orders: Repository<OrderEntity>,
    @InjectRepository(OrderLineEntity) private readonly lines: Repository<OrderLineEntity>,
    @InjectRepository(OrderShipmentEntity) private readonly shipments: Repository<OrderShipmentEntity>,
  ) {}

  /**
   * Indexes: (site_id, created_at, id) for the list and the payment-status and date filters,
   * (site_id, customer_email, created_at, id) with an email, (site_id, fulfillment_status,
   * created_at, id) with a fulfillment status, (site_id, user_id, created_at, id) for a site
   * user's own orders (`userId`).
   */
  async list(site: SiteContext, query: OrderQueryDto, userId?: number): Promise<Page<OrderEntity>> {
    const params = {
      siteId: site.id,
      userId,
      paymentStatus: query.paymentStatus,
      fulfillmentStatus: query.fulfillmentStatus,
      email: query.email?.toLowerCase(),
      from: query.from,
      to: query.to,
      ...keysetParameters(NEWEST, query),
    };
    const shape = {
      ...keysetShape(query),
      user: userId !== undefined,
      paymentStatus: query.paymentStatus !== undefined,
      fulfillmentStatus: query.fulfillmentStatus !== undefined,
      email: query.email !== undefined,
      from: query.from !== undefined,
      to: query.to !== undefined,
    };
    const { entities } = await this.orderList.read(shape, params, (s) => {
      const qb = this.orders.createQueryBuilder('o').where('o.site_id = :siteId');
      if (s.user) qb.andWhere('o.user_id = :userId');
      if (s.paymentStatus) qb.andWhere('o.payment_status = :paymentStatus');
      if (s.fulfillmentStatus) qb.andWhere('o.fulfillment_status = :fulfillmentStatus');
      if (s.email) qb.andWhere('o.customer_email = :email');
      if (s.from) qb.andWhere('o.created_at >= :from');
      if (s.to) qb.andWhere('o.created_at < :to');
      return applyKeysetShape(qb, NEWEST, s);
    });
    return keysetPage(entities, query.limit, (o) => [o.createdAt.toISOString(), o.id]);
  }

  async find(site: SiteContext, id: number): Promise<OrderEntity | undefined> {
    const { entities } = await this.orderOne.read({}, { siteId: site.id, id }, () =>
      this.orders.createQueryBuilder('o').where('o.site_id = :siteId').andWhere('o.id = :id').limit(1),
    );
    return entities[0];
  }

  async linesOf(orderId: number): Promise<OrderLineEntity[]> {
    const { entities } = await this.orderLines.read({}, { orderId }, () =>
      this.lines.createQueryBuilder('l').where('l.order_id = :orderId').orderBy('l.position', 'ASC'),
    );
    return entities;
  }

  async shipmentsOf(orderId: number): Promise<OrderShipmentEntity[]> {
    const { entities } = await this.orderShipments.read({}, { orderId }, () =>
      this.shipments.createQueryBuilder('s').where('s.order_id = :orderId').orderBy('s.id', 'ASC'),
    );
    return entities;
  }

  /**
   * Writes a new order and its lines in one statement, in the order's transaction, with the
   * site's next number: one upsert of the site's counter row (`order_numbers`), which holds that
   * row until the order commits, so numbers are sequential and a rolled-back order leaves no gap.
   * Answers the entities as stored (ids, number, timestamps). One round trip instead of three
   * (the counter, TypeORM's save of the order, of its lines): docs/benchmarks.md, orders.
   */
  async insertOrder(em: EntityManager, order: NewOrder, lines: NewOrderLine[]): Promise<OrderView> {
    const { rows } = await sql<{ id: number; number: number; created_at: Date; line_ids: number[] }>(
      em,
      `WITH n AS (
         INSERT INTO order_numbers (site_id, last_number) VALUES ($1, 1)
         ON CONFLICT (site_id) DO UPDATE SET last_number = order_numbers.last_number + 1
         RETURNING last_number
       ), o AS (
         INSERT INTO orders (site_id, account_id, number, currency, subtotal_amount, tax_amount, total_amount,
                             customer_email, customer_name, customer_phone, shipping_address, metadata, user_id,
                             expires_at)
         SELECT $1, $2, n.last_number, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $13, $14 FROM n
         RETURNING id, number, created_at
       ), l AS (
         INSERT INTO order_lines (order_id, site_id, position, product_id, variant_id, name, sku, unit_amount,
                                  quantity, tax_code, tax_behavior, tax_rate, subtotal_amount, tax_amount,
                                  total_amount, recurring_interval, recurring_interval_count)
         SELECT o.id, $1, x.position, x."productId", x."variantId", x.name, x.sku, x."unitAmount", x.quantity,
                x."taxCode", x."taxBehavior", x."taxRate", x."subtotalAmount", x."taxAmount", x."totalAmount",
                x."recurringInterval", x."recurringIntervalCount"
           FROM o, jsonb_to_recordset($12::jsonb) AS x(
             position integer, "productId" bigint, "variantId" bigint, name text, sku text, "unitAmount" bigint,
             quantity integer, "taxCode" text, "taxBehavior" text, "taxRate" integer, "subtotalAmount" bigint,
             "taxAmount" bigint, "totalAmount" bigint, "recurringInterval" text, "recurringIntervalCount" integer)
         RETURNING id, position
       )
       SELECT o.id, o.number, o.created_at, (SELECT json_agg(l.id ORDER BY l.position) FROM l) AS line_ids FROM o`,
      [
        order.siteId,
        order.accountId,
        order.currency,
        order.subtotalAmount,
        order.taxAmount,
        order.totalAmount,
        order.customerEmail,
        order.customerName,
        order.customerPhone,
        order.shippingAddress === null ? null : JSON.stringify(order.shippingAddress),
        JSON.stringify(order.metadata),
        JSON.stringify(lines.map((l, position) => ({ ...l, position }))),
        order.userId,
        order.expiresAt,
      ],
      { bigints: ['id'] },
    );
    const [row] = rows;
    const stored = em.create(OrderEntity, {
      ...order,
      id: row.id,
      number: row.number,
      paymentStatus: 'pending',
      fulfillmentStatus: 'unfulfilled',
      processorPaymentId: null,
      paymentProcessor: 'manual',
      paymentMode: null,
      createdAt: row.created_at,
      updatedAt: row.created_at,
      paidAt: null,
      refundedAt: null,
      canceledAt: null,
      anonymisedAt: null,
    });
    const storedLines = lines.map((l, position) =>
      em.create(OrderLineEntity, {
        ...l,
        id: row.line_ids[position],
        orderId: row.id,
        siteId: order.siteId,
        position,
        fulfilledQuantity: 0,
      }),
    );
    return { order: stored, lines: storedLines, shipments: [] };
  }

  /**
   * Up to `limit` orders whose hold ended by `now`, unpaid and open (orders_expires_at_idx),
   * locked for the caller's transaction; rows another transaction holds are skipped (SKIP LOCKED),
   * so instances sweeping at once share the work and never wait on each other.
   */
  lockExpired(em: EntityManager, now: Date, limit: number): Promise<OrderEntity[]> {
    return em
      .createQueryBuilder(OrderEntity, 'o')
      .where('o.expires_at IS NOT NULL')
      .andWhere("o.payment_status = 'pending'")
      .andWhere("o.fulfillment_status IN ('unfulfilled', 'partially_fulfilled')")
      .andWhere('o.expires_at <= :now', { now })
      .orderBy('o.expires_at', 'ASC')
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
  }
}
