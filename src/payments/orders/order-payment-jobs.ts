import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OutboxRelay } from '../../common/outbox/outbox-relay.service';
import { QueueService } from '../../common/queue/queue.service';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { SiteContext } from '../../common/tenancy/site-context';
import { ORDERS_EVENTS } from '../../orders/orders.events';
import { OrdersService } from '../../orders/orders.service';
import type { PaymentMode } from '../entities/payment-account.entity';
import { PaymentAccountsService } from '../payment-accounts.service';
import { describeStripeFailure } from '../stripe/stripe-clients';
import { STRIPE_METADATA } from '../stripe/stripe-metadata';

/** Cancels a PaymentIntent that must no longer be payable (its order canceled or expired, or replaced). */
export const ORDER_PI_CANCEL_JOB = 'payments.order-payment-cancel';
/** Refunds a PaymentIntent that succeeded for an order that could not be sold (canceled or expired). */
export const ORDER_PI_REFUND_JOB = 'payments.order-payment-refund';

/** The jobs' payload: ids, never the order. */
export interface PaymentIntentJobData {
  siteId: number;
  orderId: number;
  mode: PaymentMode;
  paymentIntentId: string;
}

/**
 * What Stripe is asked after the fact, as pg-boss jobs (retried with backoff; Stripe's
 * idempotency keys make a retry harmless), queued in the transaction that decided it:
 * - a canceled order's open PaymentIntent is canceled (the orders module's `order.canceled`, for
 *   the expiry's cancels and the site's): it can then not be paid for stock sold to someone else;
 * - a PaymentIntent that succeeded for an order that could not be sold is refunded, and the order
 *   recorded `refunded` (canceled and refunded: never paid).
 */
@Injectable()
export class OrderPaymentJobs implements OnModuleInit {
  private readonly logger = new Logger('Payments');

  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: PaymentAccountsService,
    private readonly orders: OrdersService,
    private readonly queue: QueueService,
    private readonly relay: OutboxRelay,
  ) {}

  onModuleInit(): void {
    this.queue.register<PaymentIntentJobData>(ORDER_PI_CANCEL_JOB, (data) => this.cancel(data), { retryLimit: 10 });
    this.queue.register<PaymentIntentJobData>(ORDER_PI_REFUND_JOB, (data) => this.refund(data), { retryLimit: 10 });
    this.relay.subscribe(ORDERS_EVENTS.canceled.name, async (em, event) => {
      if (event.siteId === null) return;
      const site = { id: event.siteId, accountId: event.accountId, name: '' };
      const order = await this.orders.lockForPayment(em, site, { id: Number(event.payload.id) });
      if (order?.paymentProcessor !== 'stripe' || order.paymentStatus !== 'pending' || !order.processorPaymentId)
        return;
      await this.queue.send<PaymentIntentJobData>(
        ORDER_PI_CANCEL_JOB,
        { siteId: site.id, orderId: order.id, mode: order.paymentMode!, paymentIntentId: order.processorPaymentId },
        { em },
      );
    });
  }

  /**
   * Cancels the PaymentIntent. One that succeeded meanwhile is left to its
   * `payment_intent.succeeded` (which refunds an order that could not be sold); one canceled or
   * gone is done. A site no longer connected in that mode has nothing to cancel with.
   */
  async cancel(data: PaymentIntentJobData): Promise<void> {
    const conn = await this.accounts.stripeOf(data.siteId, data.mode);
    if (!conn) return;
    try {
      await conn.stripe.paymentIntents.cancel(
        data.paymentIntentId,
        { cancellation_reason: 'abandoned' },
        { idempotencyKey: `sitebase-cancel-${data.siteId}-${data.paymentIntentId}` },
      );
    } catch (err) {
      const failure = describeStripeFailure(err);
      if (failure.transient) throw err;
      this.logger.warn({ ...data, failure }, 'The PaymentIntent was not canceled (it succeeded or ended already)');
    }
  }

  /** Refunds the PaymentIntent, then records the order refunded (when it was not paid otherwise). */
  async refund(data: PaymentIntentJobData): Promise<void> {
    const conn = await this.accounts.stripeOf(data.siteId, data.mode);
    if (!conn) {
      this.logger.error(data, 'A payment for an order that was not sold cannot be refunded: the site is disconnected');
      return;
    }
    try {
      await conn.stripe.refunds.create(
        {
          payment_intent: data.paymentIntentId,
          metadata: { [STRIPE_METADATA.site]: String(data.siteId), [STRIPE_METADATA.order]: String(data.orderId) },
        },
        { idempotencyKey: `sitebase-refund-unsold-${data.siteId}-${data.paymentIntentId}` },
      );
    } catch (err) {
      const failure = describeStripeFailure(err);
      if (failure.transient) throw err;
      if (failure.code !== 'charge_already_refunded') {
        this.logger.error({ ...data, failure }, 'Stripe refused to refund a payment for an order that was not sold');
        return;
      }
    }
    await this.dataSource.transaction(async (em) => {
      const row = await em.findOne(SiteEntity, {
        where: { id: data.siteId },
        select: { id: true, name: true, accountId: true },
      });
      if (!row) return;
      const site: SiteContext = { id: row.id, name: row.name, accountId: row.accountId };
      const order = await this.orders.lockForPayment(em, site, { id: data.orderId });
      if (!order) return;
      await this.orders.recordUnsoldRefund(em, site, order, {
        processor: 'stripe',
        mode: data.mode,
        processorPaymentId: data.paymentIntentId,
      });
    });
  }
}
