import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type Stripe from 'stripe';
import { EntityManager } from 'typeorm';
import { QueueService } from '../../common/queue/queue.service';
import type { OrderEntity } from '../../orders/orders.service';
import { OrdersService, ProcessorPayment } from '../../orders/orders.service';
import { PaymentCustomersRepository } from '../payment-customers.repository';
import { StripeEventContext, StripeEventHandlers } from '../stripe/stripe-event-handlers';
import { STRIPE_METADATA } from '../stripe/stripe-metadata';
import { ORDER_PI_CANCEL_JOB, ORDER_PI_REFUND_JOB, PaymentIntentJobData } from './order-payment-jobs';

type Outcome = 'applied' | 'ignored';

/** The order a Sitebase PaymentIntent names, when it names one of this site's: its id, else null. */
function orderIdOf(ctx: StripeEventContext, metadata: Stripe.Metadata | null | undefined): number | null {
  const site = metadata?.[STRIPE_METADATA.site];
  const order = metadata?.[STRIPE_METADATA.order];
  if (site !== String(ctx.site.id) || !order || !/^[1-9][0-9]{0,15}$/.test(order)) return null;
  return Number(order);
}

const idOf = (ref: string | { id: string } | null | undefined) => (typeof ref === 'string' ? ref : (ref?.id ?? null));

/** The amount and currency Stripe collected are the order's (a tampered PaymentIntent pays nothing). */
const sameAmount = (order: OrderEntity, amount: number, currency: string) =>
  amount === order.totalAmount && currency === order.currency.toLowerCase();

/**
 * Stripe's events about orders' PaymentIntents (docs/payments.md, "Orders"), applied in the
 * transaction that claims the event id, through OrdersService (the PATCH route's code path and
 * events). Each is matched to an order by the PaymentIntent's metadata (this site's id and the
 * order's) and to the order's recorded PaymentIntent; anything else is `ignored`. Each is
 * idempotent by the order's state too: a payment recorded twice records one `order.paid`.
 */
@Injectable()
export class OrderPaymentEvents implements OnModuleInit {
  private readonly logger = new Logger('Payments');

  constructor(
    private readonly handlers: StripeEventHandlers,
    private readonly orders: OrdersService,
    private readonly customers: PaymentCustomersRepository,
    private readonly queue: QueueService,
  ) {}

  onModuleInit(): void {
    this.handlers.on('payment_intent.succeeded', (em, ctx) => this.succeeded(em, ctx));
    this.handlers.on('payment_intent.payment_failed', (em, ctx) => this.failed(em, ctx));
    this.handlers.on('charge.refunded', (em, ctx) => this.refunded(em, ctx));
  }

  /**
   * The payment succeeded. A PaymentIntent of the order's with the order's amount and currency:
   * - the order pending and payable: `paid` (the recorded PaymentIntent, or one not recorded yet,
   *   its event faster than the route's answer: it names the order and this site, in this mode,
   *   for the order's amount); the card is saved for renewals when it was to be;
   * - paid by this PaymentIntent already, or refunded after it: nothing (a duplicate);
   * - the order canceled or past its hold, or paid by another payment: the money is given back
   *   (a refund job), the stock is not sold twice.
   * Another amount or currency: nothing is recorded (logged; the event `ignored`).
   */
  private async succeeded(em: EntityManager, ctx: StripeEventContext): Promise<Outcome> {
    const pi = ctx.event.data.object as Stripe.PaymentIntent;
    const order = await this.orderOf(em, ctx, pi.metadata);
    if (!order) return 'ignored';
    if (!sameAmount(order, pi.amount_received, pi.currency) || pi.amount !== pi.amount_received) {
      this.logger.warn(
        {
          siteId: ctx.site.id,
          orderId: order.id,
          paymentIntentId: pi.id,
          amount: pi.amount_received,
          currency: pi.currency,
        },
        'A PaymentIntent of an order succeeded for another amount or currency than the order’s: not recorded',
      );
      return 'ignored';
    }
    const by: ProcessorPayment = { processor: 'stripe', mode: ctx.mode, processorPaymentId: pi.id };
    const ours = order.processorPaymentId === pi.id && order.paymentMode === ctx.mode;
    if (ours && order.paymentStatus !== 'pending') return 'ignored';
    if (this.orders.unpayable(order)) {
      await this.queue.send<PaymentIntentJobData>(ORDER_PI_REFUND_JOB, this.job(ctx, order, pi.id), { em });
      return 'applied';
    }
    const previous = !ours && order.processorPaymentId && order.paymentProcessor === 'stripe' ? order : null;
    const previousJob = previous && { ...this.job(ctx, order, order.processorPaymentId!), mode: order.paymentMode! };
    await this.orders.recordProcessorPayment(em, ctx.site, order, 'paid', by);
    // Another PaymentIntent of the order (another mode's) must not be paid as well.
    if (previousJob) await this.queue.send(ORDER_PI_CANCEL_JOB, previousJob, { em });
    const customer = idOf(pi.customer);
    const method = idOf(pi.payment_method);
    if (pi.setup_future_usage === 'off_session' && customer && method)
      await this.customers.savePaymentMethod(em, ctx.site.id, ctx.mode, customer, method);
    return 'applied';
  }

  /** The payment failed: the order stays pending with its hold, the buyer may try again; logged. */
  private async failed(em: EntityManager, ctx: StripeEventContext): Promise<Outcome> {
    const pi = ctx.event.data.object as Stripe.PaymentIntent;
    const order = await this.orderOf(em, ctx, pi.metadata);
    if (!order || order.paymentStatus !== 'pending') return 'ignored';
    if (order.processorPaymentId !== null && order.processorPaymentId !== pi.id) return 'ignored';
    this.logger.log(
      { siteId: ctx.site.id, orderId: order.id, paymentIntentId: pi.id, code: pi.last_payment_error?.code ?? null },
      'A payment of an order failed; it stays pending',
    );
    return 'applied';
  }

  /**
   * A charge was refunded in full (by the refund route, the refund job, or the Stripe
   * dashboard): the order whose recorded PaymentIntent it paid becomes `refunded`. If its
   * `payment_intent.succeeded` has not come yet, the order is first recorded paid (the events
   * come in any order; neither is lost). An order that could not be sold is `refunded` without
   * being paid. A partial refund records nothing (Sitebase refunds orders whole).
   */
  private async refunded(em: EntityManager, ctx: StripeEventContext): Promise<Outcome> {
    const charge = ctx.event.data.object as Stripe.Charge;
    const piId = idOf(charge.payment_intent);
    const site = charge.metadata?.[STRIPE_METADATA.site];
    if (!piId || (site !== undefined && site !== String(ctx.site.id))) return 'ignored';
    const order = await this.orders.lockForPayment(em, ctx.site, { processorPaymentId: piId });
    if (!order || order.paymentProcessor !== 'stripe' || order.paymentMode !== ctx.mode) return 'ignored';
    if (!charge.refunded) {
      this.logger.log(
        { siteId: ctx.site.id, orderId: order.id, paymentIntentId: piId },
        'A partial refund: not recorded',
      );
      return 'ignored';
    }
    if (order.paymentStatus === 'refunded') return 'ignored';
    const by: ProcessorPayment = { processor: 'stripe', mode: ctx.mode, processorPaymentId: piId };
    if (order.paymentStatus === 'pending') {
      if (!sameAmount(order, charge.amount_captured, charge.currency)) return 'ignored';
      if (this.orders.unpayable(order)) {
        await this.orders.recordUnsoldRefund(em, ctx.site, order, by);
        return 'applied';
      }
      await this.orders.recordProcessorPayment(em, ctx.site, order, 'paid', by);
    }
    await this.orders.recordProcessorPayment(em, ctx.site, order, 'refunded', by);
    return 'applied';
  }

  private async orderOf(
    em: EntityManager,
    ctx: StripeEventContext,
    metadata: Stripe.Metadata | null | undefined,
  ): Promise<OrderEntity | null> {
    const id = orderIdOf(ctx, metadata);
    return id === null ? null : this.orders.lockForPayment(em, ctx.site, { id });
  }

  private job(ctx: StripeEventContext, order: OrderEntity, paymentIntentId: string): PaymentIntentJobData {
    return { siteId: ctx.site.id, orderId: order.id, mode: ctx.mode, paymentIntentId };
  }
}
