import { Injectable, Logger } from '@nestjs/common';
import Stripe from 'stripe';
import { DataSource } from 'typeorm';
import type { Principal } from '../../common/auth/principal';
import { ConflictProblem, Problem } from '../../common/errors/problems';
import { QueueService } from '../../common/queue/queue.service';
import { SiteContext } from '../../common/tenancy/site-context';
import { OrdersService, OrderView } from '../../orders/orders.service';
import { UsersService } from '../../users/users.service';
import { OrderPaymentIntentDto } from '../dto/order-payment.dto';
import { PaymentAccountsService, StripeOfSite } from '../payment-accounts.service';
import { describeStripeFailure, stripeProblem } from '../stripe/stripe-clients';
import { StripeCustomers } from '../stripe/stripe-customers';
import { STRIPE_METADATA } from '../stripe/stripe-metadata';
import { ORDER_PI_CANCEL_JOB, PaymentIntentJobData } from './order-payment-jobs';

const notConnected = () =>
  new ConflictProblem(
    'processor_not_connected',
    'The site collects no payments (it is not connected to Stripe): its backend records them with PATCH …/payment',
  );

/** Stripe's call, or a 503 `processor_unavailable` / 409 `processor_declined` that changed nothing. */
async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw stripeProblem(err);
  }
}

const hasRecurringLine = (view: OrderView) => view.lines.some((l) => l.recurringInterval && l.recurringIntervalCount);

/**
 * Orders paid and refunded through the site's Stripe account (docs/payments.md, "Orders"):
 * the order's PaymentIntent for a checkout, and the refund route. Stripe is called outside any
 * transaction; what it made is then recorded on the order under its lock, by OrdersService.
 */
@Injectable()
export class OrderPaymentsService {
  private readonly logger = new Logger('Payments');

  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: PaymentAccountsService,
    private readonly orders: OrdersService,
    private readonly users: UsersService,
    private readonly customers: StripeCustomers,
    private readonly queue: QueueService,
  ) {}

  /**
   * The order's PaymentIntent, made in the site's charging mode for the order's amount and
   * currency (never the client's), or the one it has (a canceled one is replaced).
   */
  async paymentIntent(site: SiteContext, id: number, caller: Principal, tries = 2): Promise<OrderPaymentIntentDto> {
    const view = await this.orders.get(site, id, caller);
    const { order } = view;
    const conn = await this.accounts.stripeOf(site.id);
    if (!conn) throw notConnected();
    const refusal = this.orders.unpayable(order);
    if (refusal) throw refusal;
    let key = `sitebase-order-${site.id}-${order.id}-${conn.mode}`;
    let replaced: PaymentIntentJobData | null = null;
    if (order.paymentProcessor === 'stripe' && order.processorPaymentId) {
      if (order.paymentMode === conn.mode) {
        const known = await call(() => conn.stripe.paymentIntents.retrieve(order.processorPaymentId!));
        if (known.status !== 'canceled') return answer(conn, known);
        key += `-after-${known.id}`;
      } else {
        // The site went live (or back) since: a PaymentIntent of the other mode is canceled.
        replaced = {
          siteId: site.id,
          orderId: order.id,
          mode: order.paymentMode!,
          paymentIntentId: order.processorPaymentId,
        };
      }
    }
    const customer = await this.customerFor(conn, site, view);
    const made = await call(() =>
      conn.stripe.paymentIntents.create(
        {
          amount: order.totalAmount,
          currency: order.currency.toLowerCase(),
          automatic_payment_methods: { enabled: true },
          description: `Order ${order.number}`,
          metadata: { [STRIPE_METADATA.site]: String(site.id), [STRIPE_METADATA.order]: String(order.id) },
          ...(customer ? { customer } : {}),
          ...(hasRecurringLine(view) ? { setup_future_usage: 'off_session' as const } : {}),
        },
        { idempotencyKey: key },
      ),
    );
    const outcome = await this.dataSource.transaction(async (em) => {
      const locked = await this.orders.lockForPayment(em, site, { id: order.id });
      const changed = !locked || this.orders.unpayable(locked);
      const raced =
        locked && locked.processorPaymentId !== order.processorPaymentId && locked.processorPaymentId !== made.id;
      if (changed || raced) {
        // Paid, canceled or expired meanwhile, or another PaymentIntent recorded: this one must not be payable.
        await this.queue.send<PaymentIntentJobData>(
          ORDER_PI_CANCEL_JOB,
          { siteId: site.id, orderId: order.id, mode: conn.mode, paymentIntentId: made.id },
          { em },
        );
        return changed || 'raced';
      }
      await this.orders.attachProcessorPayment(em, locked, {
        processor: 'stripe',
        mode: conn.mode,
        processorPaymentId: made.id,
      });
      if (replaced) await this.queue.send(ORDER_PI_CANCEL_JOB, replaced, { em });
      return null;
    });
    if (outcome === 'raced' && tries > 1) return this.paymentIntent(site, id, caller, tries - 1);
    if (outcome instanceof Problem) throw outcome;
    if (outcome) throw this.orders.transitionRefused(`Order ${order.number} changed meanwhile; read it again`);
    return answer(conn, made);
  }

  /**
   * The Stripe Customer a PaymentIntent names: the site user's (their order, or the user of the
   * order's address when a recurring line must be charged again later), made when they have none.
   * An order of a key without a recurring line names none.
   */
  private async customerFor(conn: StripeOfSite, site: SiteContext, view: OrderView): Promise<string | null> {
    const { order } = view;
    let userId = order.userId;
    if (userId === null) {
      if (!hasRecurringLine(view) || !order.customerEmail) return null;
      const email = order.customerEmail;
      userId = (await this.dataSource.transaction((em) => this.users.findOrCreateByEmail(em, site, email))).id;
    }
    return call(() =>
      this.customers.customerOf(conn, site, userId, { email: order.customerEmail, name: order.customerName }),
    );
  }

  /**
   * Refunds a paid order: through Stripe for a Stripe order (the whole payment, outside any
   * transaction; 503 and nothing changed when Stripe fails), then `refunded` with `order.refunded`
   * by the same code path as PATCH …/payment. A manual order is recorded refunded, as PATCH does.
   */
  async refund(site: SiteContext, id: number, caller: Principal): Promise<OrderView> {
    const { order } = await this.orders.get(site, id, caller);
    if (order.paymentProcessor === 'manual') return this.orders.updatePayment(site, id, { paymentStatus: 'refunded' });
    if (order.paymentStatus !== 'paid' || !order.processorPaymentId)
      throw this.orders.transitionRefused(
        `Order ${order.number} is ${order.paymentStatus}: only a paid order is refunded`,
      );
    const conn = await this.accounts.stripeOf(site.id, order.paymentMode ?? undefined);
    if (!conn) throw notConnected();
    try {
      await conn.stripe.refunds.create(
        {
          payment_intent: order.processorPaymentId,
          reason: 'requested_by_customer',
          metadata: { [STRIPE_METADATA.site]: String(site.id), [STRIPE_METADATA.order]: String(order.id) },
        },
        { idempotencyKey: `sitebase-refund-${site.id}-${order.id}` },
      );
    } catch (err) {
      // Refunded already at Stripe (its dashboard; its event not here yet): record it.
      if (describeStripeFailure(err).code !== 'charge_already_refunded') throw stripeProblem(err);
    }
    const by = { processor: 'stripe' as const, mode: conn.mode, processorPaymentId: order.processorPaymentId };
    return this.dataSource.transaction(async (em) => {
      const locked = (await this.orders.lockForPayment(em, site, { id }))!;
      // Stripe's charge.refunded may have recorded it first: nothing more, no second event.
      if (locked.paymentStatus === 'refunded') return this.orders.viewOf(em, locked);
      return this.orders.recordProcessorPayment(em, site, locked, 'refunded', by);
    });
  }
}

function answer({ mode }: StripeOfSite, pi: Stripe.PaymentIntent): OrderPaymentIntentDto {
  return {
    processor: 'stripe',
    mode,
    paymentIntentId: pi.id,
    clientSecret: pi.client_secret!,
    amount: pi.amount,
    currency: pi.currency,
    status: pi.status,
  };
}
