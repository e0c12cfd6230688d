import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SitesService } from '../account/sites.service';
import { CatalogService, PricedLine } from '../catalog/catalog.service';
import { NotFoundProblem, ValidationProblem } from '../common/errors/problems';
import { recordEvent } from '../common/outbox/record-event';
import { Page } from '../common/pagination/page';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { EmailService } from '../email/email.service';
import { UsersService } from '../users/users.service';
import type { Principal } from '../common/auth/principal';
import { CreateOrderDto, OrderQueryDto, ShipmentDto, UpdatePaymentDto } from './dto/order.dto';
import { OrderLineEntity } from './entities/order-line.entity';
import { OrderShipmentEntity } from './entities/order-shipment.entity';
import { OrderEntity } from './entities/order.entity';
import { formatMoney } from './order-mail';
import { priceOrder } from './order-pricing';
import { applyFulfillment, assertPaymentTransition, FulfillmentChange } from './order-status';
import { ORDERS_EVENTS } from './orders.events';
import { OrdersRepository, OrderView } from './orders.repository';

/** An order with its lines and shipments: what a get answers. */
export type { OrderView } from './orders.repository';

/** A change of fulfillment as the PATCH and a provider's notification ask it: a shipment, or a status. */
export interface FulfillmentRequest {
  shipment?: ShipmentDto;
  status?: 'fulfilled' | 'canceled';
}

/** What a change of fulfillment did: the order after it, and the shipment it added. */
/** A signed-in site user placing or reading their own orders. */
export interface Buyer {
  userId: number;
  /** Their address, normalised. */
  email: string;
  name: string;
}

/** The order's customer: the body's (a key), or the signed-in buyer under their own address. */
function customerOf(
  dto: CreateOrderDto,
  buyer?: Buyer,
): { customerEmail: string; customerName: string | null; customerPhone: string | null } {
  if (!buyer) {
    if (!dto.customer) throw new ValidationProblem([{ path: 'customer', message: 'is required with a key' }]);
    return {
      customerEmail: dto.customer.email.toLowerCase(),
      customerName: dto.customer.name ?? null,
      customerPhone: dto.customer.phone ?? null,
    };
  }
  if (dto.customer && dto.customer.email.toLowerCase() !== buyer.email)
    throw new ValidationProblem([
      { path: 'customer.email', message: 'must be the signed-in user’s own address (or left out)' },
    ]);
  return {
    customerEmail: buyer.email,
    customerName: dto.customer?.name ?? (buyer.name || null),
    customerPhone: dto.customer?.phone ?? null,
  };
}

export interface FulfillmentResult {
  order: OrderEntity;
  shipment: OrderShipmentEntity | null;
}

/**
 * Orders (docs/orders.md): placed from the catalog's prices and stock, paid, fulfilled. A
 * site's backend (a key) places and reads any order of the site; a signed-in site user (a
 * `Buyer`) places their own, under their address, and reads only theirs.
 */
@Injectable()
export class OrdersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: OrdersRepository,
    private readonly catalog: CatalogService,
    private readonly email: EmailService,
    private readonly sites: SitesService,
    private readonly users: UsersService,
  ) {}

  /** The caller as a buyer: a site user's session; a key is no buyer (it acts for the site). */
  private async buyerOf(caller: Principal): Promise<Buyer | undefined> {
    if (caller.kind !== 'user') return undefined;
    const user = await this.users.me(caller);
    return { userId: user.id, email: user.email, name: user.name };
  }

  /** A site user's session lists only their own orders. */
  list(site: SiteContext, query: OrderQueryDto, caller: Principal): Promise<Page<OrderEntity>> {
    return this.repository.list(site, query, caller.kind === 'user' ? caller.userId : undefined);
  }

  /** Another site's order, or for a site user another person's, is a 404 like a missing one. */
  async get(site: SiteContext, id: number, caller: Principal): Promise<OrderView> {
    const order = await this.repository.find(site, id);
    if (!order || (caller.kind === 'user' && order.userId !== caller.userId)) throw new NotFoundProblem('Order');
    const [lines, shipments] = await Promise.all([
      this.repository.linesOf(order.id),
      this.repository.shipmentsOf(order.id),
    ]);
    return { order, lines, shipments };
  }

  /**
   * Places an order, in one transaction: prices from the catalog (a 400 names a line that is
   * not for sale or in another currency), tax from the site's rates, the stock taken (409
   * `out_of_stock` naming the item), the site's next number, the order and its line snapshots,
   * the confirmation mail and `order.created`. Anything that fails leaves nothing behind.
   */
  async create(site: SiteContext, dto: CreateOrderDto, caller: Principal): Promise<OrderView> {
    const buyer = await this.buyerOf(caller);
    const customer = customerOf(dto, buyer);
    return this.dataSource.transaction(async (em) => {
      const catalogLines = await this.catalog.priceLines(
        em,
        site,
        dto.lines.map((l) => ({ productId: l.productId, variantId: l.variantId ?? null, quantity: l.quantity })),
      );
      const { settings } = await this.sites.profileOf(site.id, em);
      const { lines, totals } = priceOrder(catalogLines, settings.orders);
      // Row locks from here to the commit: the stock (in product order), then the site's counter.
      await this.catalog.takeStock(em, site, catalogLines);
      const view = await this.repository.insertOrder(
        em,
        {
          siteId: site.id,
          accountId: site.accountId,
          userId: buyer?.userId ?? null,
          ...totals,
          ...customer,
          shippingAddress: dto.shippingAddress ? { ...dto.shippingAddress } : null,
          metadata: dto.metadata ?? {},
        },
        lines.map((l) => ({
          productId: l.productId,
          variantId: l.variantId,
          name: l.name,
          sku: l.sku,
          unitAmount: l.unitAmount,
          quantity: l.quantity,
          taxCode: l.taxCode,
          taxBehavior: l.taxBehavior,
          taxRate: l.taxRate,
          subtotalAmount: l.subtotalAmount,
          taxAmount: l.taxAmount,
          totalAmount: l.totalAmount,
          recurringInterval: l.recurring?.interval ?? null,
          recurringIntervalCount: l.recurring?.intervalCount ?? null,
        })),
      );
      const { order } = view;
      await this.email.send(em, site, {
        to: { email: order.customerEmail!, ...(order.customerName ? { name: order.customerName } : {}) },
        templateType: 'orders.confirmation',
        data: confirmationData(order, view.lines),
      });
      await recordEvent(em, site, ORDERS_EVENTS.created, {
        id: order.id,
        number: order.number,
        currency: order.currency,
        totalAmount: order.totalAmount,
        paymentStatus: order.paymentStatus,
        fulfillmentStatus: order.fulfillmentStatus,
      });
      return view;
    });
  }

  /**
   * Records the payment (`pending → paid → refunded`; any other move is a 409 and changes
   * nothing). Paid: `order.paid`, then one `order.subscription_requested` per recurring line.
   */
  updatePayment(site: SiteContext, id: number, dto: UpdatePaymentDto): Promise<OrderView> {
    return this.dataSource.transaction(async (em) => {
      const order = await findInSiteOrFail(em, OrderEntity, site, id, 'Order', { lock: true });
      assertPaymentTransition(order.paymentStatus, dto.paymentStatus);
      order.paymentStatus = dto.paymentStatus;
      if (dto.processorPaymentId !== undefined) order.processorPaymentId = dto.processorPaymentId;
      if (dto.paymentStatus === 'paid') order.paidAt = new Date();
      if (dto.paymentStatus === 'refunded') order.refundedAt = new Date();
      const saved = await em.save(order);
      const lines = await this.linesIn(em, order.id);
      const payload = {
        id: saved.id,
        number: saved.number,
        currency: saved.currency,
        totalAmount: saved.totalAmount,
        processorPaymentId: saved.processorPaymentId,
      };
      if (saved.paymentStatus === 'paid') {
        await recordEvent(em, site, ORDERS_EVENTS.paid, payload);
        for (const line of lines.filter((l) => l.recurringInterval && l.recurringIntervalCount))
          await recordEvent(em, site, ORDERS_EVENTS.subscriptionRequested, {
            orderId: saved.id,
            orderNumber: saved.number,
            userId: saved.userId,
            lineId: line.id,
            productId: line.productId,
            variantId: line.variantId,
            quantity: line.quantity,
            interval: line.recurringInterval!,
            intervalCount: line.recurringIntervalCount!,
            unitAmount: line.unitAmount,
            currency: saved.currency,
          });
      } else if (saved.paymentStatus === 'refunded') {
        await recordEvent(em, site, ORDERS_EVENTS.refunded, payload);
      }
      return { order: saved, lines, shipments: await this.shipmentsIn(em, order.id) };
    });
  }

  /** PATCH …/orders/{id}/fulfillment: one change, in its own transaction; answers the order. */
  updateFulfillment(site: SiteContext, id: number, request: FulfillmentRequest): Promise<OrderView> {
    return this.dataSource.transaction(async (em) => {
      const { order } = await this.changeFulfillment(em, site, id, request, null);
      return {
        order,
        lines: await this.linesIn(em, order.id),
        shipments: await this.shipmentsIn(em, order.id),
      };
    });
  }

  /**
   * Applies a change of fulfillment in the caller's transaction (the PATCH's, or a provider
   * notification's): the order locked, the pure rules of order-status.ts (a forbidden move is a
   * 409 and changes nothing), the lines' fulfilled quantities, the shipment, the stock a cancel
   * gives back, the shipped mail and `order.fulfillment_updated`.
   */
  async changeFulfillment(
    em: EntityManager,
    site: SiteContext,
    id: number,
    request: FulfillmentRequest,
    notificationId: string | null,
  ): Promise<FulfillmentResult> {
    const change = toChange(request);
    const order = await findInSiteOrFail(em, OrderEntity, site, id, 'Order', { lock: true });
    const lines = await this.linesIn(em, order.id);
    const outcome = applyFulfillment(order.fulfillmentStatus, lines, change);
    for (const { lineId, quantity } of outcome.added)
      await em.increment(OrderLineEntity, { id: lineId, orderId: order.id }, 'fulfilledQuantity', quantity);
    let shipment: OrderShipmentEntity | null = null;
    if (request.shipment) {
      shipment = await em.save(
        em.create(OrderShipmentEntity, {
          orderId: order.id,
          siteId: site.id,
          carrier: request.shipment.carrier,
          trackingNumber: request.shipment.trackingNumber,
          trackingUrl: request.shipment.trackingUrl ?? null,
          lines: outcome.added,
          notificationId,
        }),
      );
    }
    if (outcome.released.length) {
      const byId = new Map(lines.map((l) => [l.id, l]));
      await this.catalog.restoreStock(
        em,
        site,
        outcome.released.map(({ lineId, quantity }) => stockLine(byId.get(lineId)!, order.currency, quantity)),
      );
    }
    const previous = order.fulfillmentStatus;
    order.fulfillmentStatus = outcome.status;
    if (outcome.status === 'canceled') order.canceledAt = new Date();
    const saved = await em.save(order);
    if (shipment && saved.customerEmail) {
      await this.email.send(em, site, {
        to: { email: saved.customerEmail, ...(saved.customerName ? { name: saved.customerName } : {}) },
        templateType: 'orders.shipped',
        data: {
          orderNumber: String(saved.number),
          ...(saved.customerName ? { customerName: saved.customerName } : {}),
          carrier: shipment.carrier,
          trackingNumber: shipment.trackingNumber,
          ...(shipment.trackingUrl ? { trackingUrl: shipment.trackingUrl } : {}),
        },
      });
    }
    await recordEvent(em, site, ORDERS_EVENTS.fulfillmentUpdated, {
      id: saved.id,
      number: saved.number,
      fulfillmentStatus: saved.fulfillmentStatus,
      previousFulfillmentStatus: previous,
      shipmentId: shipment?.id ?? null,
    });
    return { order: saved, shipment };
  }

  private linesIn(em: EntityManager, orderId: number): Promise<OrderLineEntity[]> {
    return em.find(OrderLineEntity, { where: { orderId }, order: { position: 'ASC' } });
  }

  private shipmentsIn(em: EntityManager, orderId: number): Promise<OrderShipmentEntity[]> {
    return em.find(OrderShipmentEntity, { where: { orderId }, order: { id: 'ASC' } });
  }
}

/** Exactly one of a shipment and a status (400 otherwise). */
function toChange(request: FulfillmentRequest): FulfillmentChange {
  if (request.shipment && request.status)
    throw new ValidationProblem([{ path: 'status', message: 'give a shipment or a status, not both' }]);
  if (request.shipment) return { kind: 'shipment', lines: request.shipment.lines };
  if (request.status) return { kind: 'status', status: request.status };
  throw new ValidationProblem([{ path: 'shipment', message: 'a shipment or a status is required' }]);
}

/** A line's snapshot as the catalog takes stock back: its product and variant, `quantity` units. */
function stockLine(line: OrderLineEntity, currency: string, quantity: number): PricedLine {
  return {
    productId: line.productId,
    variantId: line.variantId,
    name: line.name,
    sku: line.sku,
    unitAmount: line.unitAmount,
    currency,
    quantity,
    taxCode: line.taxCode,
    taxBehavior: line.taxBehavior,
    recurring:
      line.recurringInterval && line.recurringIntervalCount
        ? { interval: line.recurringInterval, intervalCount: line.recurringIntervalCount }
        : null,
  };
}

/** The `orders.confirmation` variables: unit prices, the tax when there is some, the total. */
function confirmationData(order: OrderEntity, lines: OrderLineEntity[]): Record<string, unknown> {
  const added = lines.some((l) => l.taxBehavior === 'exclusive' && l.taxAmount > 0);
  return {
    orderNumber: String(order.number),
    ...(order.customerName ? { customerName: order.customerName } : {}),
    items: lines.map((l) => ({ name: l.name, quantity: l.quantity, price: formatMoney(l.unitAmount, order.currency) })),
    ...(order.taxAmount > 0 ? { tax: formatMoney(order.taxAmount, order.currency), taxIncluded: !added } : {}),
    total: formatMoney(order.totalAmount, order.currency),
  };
}
