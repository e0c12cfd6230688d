import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { CatalogService, PricedLine } from '../catalog/catalog.service';
import { ValidationProblem } from '../common/errors/problems';
import { recordEvent } from '../common/outbox/record-event';
import { Clock } from '../common/scheduling/clock';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { EmailService } from '../email/email.service';
import { ShipmentDto } from './dto/order.dto';
import { OrderLineEntity } from './entities/order-line.entity';
import { OrderShipmentEntity } from './entities/order-shipment.entity';
import { OrderEntity } from './entities/order.entity';
import { isDueForExpiry } from './order-holds';
import { applyFulfillment, FulfillmentChange } from './order-status';
import { CancelReason, ORDERS_EVENTS } from './orders.events';
import type { OrderView } from './orders.repository';

/** A change of fulfillment as the PATCH and a provider's notification ask it: a shipment, or a status. */
export interface FulfillmentRequest {
  shipment?: ShipmentDto;
  status?: 'fulfilled' | 'canceled';
}

/** What a change of fulfillment did: the order after it, and the shipment it added. */
export interface FulfillmentResult {
  order: OrderEntity;
  shipment: OrderShipmentEntity | null;
}

/**
 * An order's fulfillment (docs/orders.md, "Statuses and transitions"): shipments, the rest
 * fulfilled, and cancels, by the site (the PATCH, a provider's notification) or by the expiry of
 * an unpaid order's hold. Every cancel gives back the stock of what was not fulfilled the same way
 * and records `order.canceled` with its reason.
 */
@Injectable()
export class OrderFulfillmentService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly catalog: CatalogService,
    private readonly email: EmailService,
    private readonly clock: Clock,
  ) {}

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
   * notification's): the order locked, then `applyChange`. A cancel here is the site's
   * (`order.canceled` with reason `canceled`).
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
    return this.applyChange(em, site, order, change, request.shipment, notificationId, 'canceled');
  }

  /**
   * The expiry of an order the caller has locked (the expiry job, the sweep): when it is still
   * unpaid, open and past its hold (checked again under the lock, so it happens once however many
   * instances try), it is canceled as a site's cancel is (its stock given back, `canceledAt`,
   * `order.fulfillment_updated`), with `order.canceled` of reason `expired`; it keeps `expiresAt`.
   * Answers whether it canceled the order.
   */
  async expire(em: EntityManager, site: SiteContext, order: OrderEntity): Promise<boolean> {
    if (!isDueForExpiry(order, this.clock.now())) return false;
    await this.applyChange(em, site, order, { kind: 'status', status: 'canceled' }, undefined, null, 'expired');
    return true;
  }

  /**
   * One change of a locked order: the pure rules of order-status.ts (a forbidden move is a 409 and
   * changes nothing), the lines' fulfilled quantities, the shipment, the stock a cancel gives back,
   * the shipped mail, `order.fulfillment_updated`, and for a cancel `order.canceled`. A site's
   * cancel, a shipment and a full fulfilment end the order's hold (`expiresAt` null).
   */
  private async applyChange(
    em: EntityManager,
    site: SiteContext,
    order: OrderEntity,
    change: FulfillmentChange,
    shipmentRequest: ShipmentDto | undefined,
    notificationId: string | null,
    cancelReason: CancelReason,
  ): Promise<FulfillmentResult> {
    const lines = await this.linesIn(em, order.id);
    const outcome = applyFulfillment(order.fulfillmentStatus, lines, change);
    for (const { lineId, quantity } of outcome.added)
      await em.increment(OrderLineEntity, { id: lineId, orderId: order.id }, 'fulfilledQuantity', quantity);
    let shipment: OrderShipmentEntity | null = null;
    if (shipmentRequest) {
      shipment = await em.save(
        em.create(OrderShipmentEntity, {
          orderId: order.id,
          siteId: site.id,
          carrier: shipmentRequest.carrier,
          trackingNumber: shipmentRequest.trackingNumber,
          trackingUrl: shipmentRequest.trackingUrl ?? null,
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
    if (outcome.status === 'canceled') order.canceledAt = this.clock.now();
    // A shipment, a full fulfilment or a site's cancel ends the hold: the site has taken the order in hand.
    if (shipment || outcome.status === 'fulfilled' || (outcome.status === 'canceled' && cancelReason === 'canceled'))
      order.expiresAt = null;
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
    if (saved.fulfillmentStatus === 'canceled')
      await recordEvent(em, site, ORDERS_EVENTS.canceled, { id: saved.id, number: saved.number, reason: cancelReason });
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
