import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { OutboxEvent, OutboxRelay } from '../../common/outbox/outbox-relay.service';
import { EventScope, recordEvent } from '../../common/outbox/record-event';
import { QueueService } from '../../common/queue/queue.service';
import { Clock } from '../../common/scheduling/clock';
import { ORDERS_EVENTS, SubscriptionRequestedPayload } from '../../orders/orders.events';
import { SiteUserEntity } from '../entities/site-user.entity';
import { UserSubscriptionEntity } from '../entities/user-subscription.entity';
import { SubscriptionBilling } from './subscription-billing';
import { recordSubscription } from './subscription-ledger';
import { SubscriptionPeriods } from './subscription-periods';
import { UserSubscriptionsRepository } from './user-subscriptions.repository';
import { addInterval } from './subscription-status';
import { UsersRepository } from '../users.repository';
import { USER_EVENTS } from '../users.events';

export const SUBSCRIPTION_RESUME_JOB = 'users.subscription-resume';
export const SUBSCRIPTION_PERIODS_JOB = 'users.subscription-periods';

/**
 * What moves subscriptions without a request (docs/users.md, "Subscriptions"): a paid order's
 * recurring line starts one (the orders module's `order.subscription_requested`), the period job
 * rolls periods every minute, and the resume job ends a pause at its `resumesAt`.
 */
@Injectable()
export class SubscriptionJobsService implements OnModuleInit {
  constructor(
    private readonly queue: QueueService,
    private readonly relay: OutboxRelay,
    private readonly billing: SubscriptionBilling,
    private readonly periods: SubscriptionPeriods,
    private readonly users: UsersRepository,
    private readonly subscriptions: UserSubscriptionsRepository,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.relay.subscribe(ORDERS_EVENTS.subscriptionRequested.name, async (em, event) => {
      await this.startFromOrder(em, event);
    });
    this.queue.register<{ id: number; version: number }>(
      SUBSCRIPTION_RESUME_JOB,
      (data) => this.periods.resumeDue(data),
      { retryLimit: 5 },
    );
    this.queue.register(SUBSCRIPTION_PERIODS_JOB, async () => void (await this.periods.rollPeriods()), {
      cron: '* * * * *',
      retryLimit: 1,
    });
  }

  /** The period job's work up to `now` (the clock's, by default): subscription-periods.ts. */
  rollPeriods(now?: Date): Promise<number> {
    return this.periods.rollPeriods(now);
  }

  /**
   * `order.subscription_requested` (at least once): the subscription of one recurring line of a
   * paid order, for the user who placed it signed in, else the site user of the order's address
   * (made now if there is none: they can sign in with it); its first period is paid by the order
   * (an `initial` line); an order paid through Stripe makes a Stripe subscription in its mode. Keyed by the line: a second delivery starts nothing. Answers the subscription, or null when there was nothing to start.
   */
  async startFromOrder(em: EntityManager, event: OutboxEvent): Promise<UserSubscriptionEntity | null> {
    if (event.siteId === null) return null;
    const p = event.payload as unknown as SubscriptionRequestedPayload;
    const scope: EventScope = { id: event.siteId, accountId: event.accountId };
    const userId = await this.customerOf(em, scope, p);
    if (userId === null) return null;
    const collector = await this.collectorOf(em, scope, p);
    const now = this.clock.now();
    const inserted = await this.subscriptions.insertOnce(em, {
      siteId: event.siteId,
      userId,
      productId: p.productId,
      variantId: p.variantId,
      quantity: p.quantity,
      status: 'active',
      unitAmount: p.unitAmount,
      currency: p.currency,
      interval: p.interval as UserSubscriptionEntity['interval'],
      intervalCount: p.intervalCount,
      currentPeriodStart: now,
      currentPeriodEnd: addInterval(now, p.interval as UserSubscriptionEntity['interval'], p.intervalCount),
      processor: collector.processor,
      processorMode: collector.mode,
      orderId: p.orderId,
      orderLineId: p.lineId,
    });
    if (!inserted) return null;
    const sub = await em.findOneOrFail(UserSubscriptionEntity, { where: { orderLineId: p.lineId } });
    await recordSubscription(em, scope, USER_EVENTS.subscriptionCreated, sub, null, 'created');
    await this.billing.initial(em, sub);
    return sub;
  }

  /**
   * Who collects the subscription's later charges: Stripe, in the mode its order was paid in, when
   * the order was paid through Stripe (its payment saved the customer's payment method,
   * docs/payments.md "Subscriptions"); otherwise `manual`, as before.
   */
  private async collectorOf(
    em: EntityManager,
    scope: EventScope,
    p: SubscriptionRequestedPayload,
  ): Promise<{ processor: string; mode: 'test' | 'live' | null }> {
    const order = await this.subscriptions.orderCollector(em, scope.id!, p.orderId);
    return order?.payment_processor === 'stripe' && order.payment_mode
      ? { processor: 'stripe', mode: order.payment_mode }
      : { processor: 'manual', mode: null };
  }

  /** The site user an order's subscription is for; null when the order no longer names anyone. */
  private async customerOf(
    em: EntityManager,
    scope: EventScope,
    p: SubscriptionRequestedPayload,
  ): Promise<number | null> {
    if (p.userId) {
      const user = await em.findOne(SiteUserEntity, { where: { id: p.userId, siteId: scope.id! } });
      if (user) return user.id;
    }
    const email = await this.subscriptions.orderCustomerEmail(em, scope.id!, p.orderId);
    if (!email) return null;
    const { user, created } = await this.users.findOrCreate(em, scope.id!, email);
    if (created) await recordEvent(em, scope, USER_EVENTS.created, { id: user.id, status: user.status });
    return user.id;
  }
}
