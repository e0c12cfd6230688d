import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ConflictProblem } from '../common/errors/problems';
import { recordEvent } from '../common/outbox/record-event';
import { Clock } from '../common/scheduling/clock';
import { SiteContext } from '../common/tenancy/site-context';
import { OrderLineEntity } from './entities/order-line.entity';
import { OrderShipmentEntity } from './entities/order-shipment.entity';
import { OrderEntity } from './entities/order.entity';
import { OrderFulfillmentService } from './order-fulfillment.service';
import { isDueForExpiry, isExpired } from './order-holds';
import { assertPaymentTransition, PaymentStatus } from './order-status';
import { ORDERS_EVENTS } from './orders.events';
import type { OrderView } from './orders.repository';

/** Who collected a payment: the processor, its mode and its id of the payment. */
export interface ProcessorPayment {
  processor: 'stripe';
  mode: 'test' | 'live';
  processorPaymentId: string;
}

/** Why an order cannot be paid now: answered as a 409 by a route, or acted on by an event. */
export type UnpayableReason = 'transition_forbidden' | 'order_expired';

/**
 * An order's payment (docs/orders.md, "Statuses and transitions"; docs/payments.md, "Orders"):
 * the one code path of the PATCH route and of a processor's events. Each method works on the
 * order locked in the caller's transaction.
 */
@Injectable()
export class OrderPaymentRecords {
  constructor(
    private readonly fulfillment: OrderFulfillmentService,
    private readonly clock: Clock,
  ) {}

  /** Why the order cannot be paid now, with the 409 a route answers; null: it can. */
  unpayable(order: OrderEntity): ConflictProblem | null {
    const expired =
      isExpired(order, this.clock.now()) ||
      (order.paymentStatus === 'pending' && order.fulfillmentStatus === 'canceled' && order.expiresAt !== null);
    if (expired)
      return new ConflictProblem(
        'order_expired',
        `Order ${order.number} expired unpaid at ${order.expiresAt!.toISOString()}; place a new order`,
      );
    if (order.paymentStatus !== 'pending')
      return new ConflictProblem('transition_forbidden', `Order ${order.number} is ${order.paymentStatus} already`);
    if (order.fulfillmentStatus === 'canceled')
      return new ConflictProblem('transition_forbidden', `Order ${order.number} was canceled; it cannot be paid`);
    return null;
  }

  lock(em: EntityManager, site: SiteContext, id: number): Promise<OrderEntity | null> {
    return em.findOne(OrderEntity, { where: { id, siteId: site.id }, lock: { mode: 'pessimistic_write' } });
  }

  /** The site's order whose payment is this processor id (index orders_site_id_processor_payment_id_idx), locked. */
  lockByProcessorPayment(
    em: EntityManager,
    site: SiteContext,
    processorPaymentId: string,
  ): Promise<OrderEntity | null> {
    return em.findOne(OrderEntity, {
      where: { siteId: site.id, processorPaymentId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /**
   * Moves a locked order's payment (`pending → paid → refunded`; any other move is a 409 and
   * changes nothing). Paid: an order past its hold is a 409 `order_expired`; no expiry any more,
   * `order.paid`, then one `order.subscription_requested` per recurring line. Refunded:
   * `order.refunded`. `by` records who collected it (a processor's payment).
   */
  async move(
    em: EntityManager,
    site: SiteContext,
    order: OrderEntity,
    to: PaymentStatus,
    processorPaymentId: string | undefined,
    by?: ProcessorPayment,
  ): Promise<OrderView> {
    if (to === 'paid' && isExpired(order, this.clock.now()))
      throw new ConflictProblem(
        'order_expired',
        `Order ${order.number} expired unpaid at ${order.expiresAt!.toISOString()}; place a new order`,
      );
    assertPaymentTransition(order.paymentStatus, to);
    order.paymentStatus = to;
    if (processorPaymentId !== undefined) order.processorPaymentId = processorPaymentId;
    if (by) Object.assign(order, { paymentProcessor: by.processor, paymentMode: by.mode });
    if (to === 'paid') {
      order.paidAt = new Date();
      order.expiresAt = null;
    }
    if (to === 'refunded') order.refundedAt = new Date();
    const saved = await em.save(order);
    const lines = await this.linesIn(em, order.id);
    if (saved.paymentStatus === 'paid') {
      await recordEvent(em, site, ORDERS_EVENTS.paid, this.payload(saved));
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
      await recordEvent(em, site, ORDERS_EVENTS.refunded, this.payload(saved));
    }
    return { order: saved, lines, shipments: await this.shipmentsIn(em, order.id) };
  }

  /** Records the processor's payment id on a locked, payable order (a PaymentIntent made for it). */
  async attach(em: EntityManager, order: OrderEntity, by: ProcessorPayment): Promise<OrderEntity> {
    Object.assign(order, {
      paymentProcessor: by.processor,
      paymentMode: by.mode,
      processorPaymentId: by.processorPaymentId,
    });
    return em.save(order);
  }

  /**
   * A processor's payment of an order that could no longer be sold (canceled, or past its hold)
   * was given back: the unpaid order becomes `refunded` (never `paid`: nothing was sold), with
   * `order.refunded`. An order past its hold that the expiry has not canceled yet is canceled now
   * (its stock back), so a refunded order never keeps holding stock. Answers false when the order
   * is not pending (paid by another payment, or refunded already): nothing to record.
   */
  async refundUnsold(em: EntityManager, site: SiteContext, order: OrderEntity, by: ProcessorPayment): Promise<boolean> {
    if (order.paymentStatus !== 'pending') return false;
    if (isDueForExpiry(order, this.clock.now())) await this.fulfillment.expire(em, site, order);
    Object.assign(order, {
      paymentStatus: 'refunded',
      refundedAt: new Date(),
      paymentProcessor: by.processor,
      paymentMode: by.mode,
      processorPaymentId: by.processorPaymentId,
    });
    const saved = await em.save(order);
    await recordEvent(em, site, ORDERS_EVENTS.refunded, this.payload(saved));
    return true;
  }

  /** A locked order with its lines and shipments: what a route answers. */
  async view(em: EntityManager, order: OrderEntity): Promise<OrderView> {
    return { order, lines: await this.linesIn(em, order.id), shipments: await this.shipmentsIn(em, order.id) };
  }

  private payload(o: OrderEntity) {
    return {
      id: o.id,
      number: o.number,
      currency: o.currency,
      totalAmount: o.totalAmount,
      processorPaymentId: o.processorPaymentId,
    };
  }

  private linesIn(em: EntityManager, orderId: number): Promise<OrderLineEntity[]> {
    return em.find(OrderLineEntity, { where: { orderId }, order: { position: 'ASC' } });
  }

  private shipmentsIn(em: EntityManager, orderId: number): Promise<OrderShipmentEntity[]> {
    return em.find(OrderShipmentEntity, { where: { orderId }, order: { id: 'ASC' } });
  }
}
