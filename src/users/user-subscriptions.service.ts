import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { NotFoundProblem, ValidationProblem } from '../common/errors/problems';
import { OutboxEvent, OutboxRelay } from '../common/outbox/outbox-relay.service';
import { EventScope, recordEvent } from '../common/outbox/record-event';
import {
  applyKeysetShape,
  KeysetColumn,
  keysetPage,
  keysetParameters,
  keysetShape,
  Page,
} from '../common/pagination/page';
import { QueueService } from '../common/queue/queue.service';
import { Clock } from '../common/scheduling/clock';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { ShapedReads } from '../database/fast-read';
import { sql } from '../database/sql';
import { ORDERS_EVENTS, SubscriptionRequestedPayload } from '../orders/orders.events';
import { CreateChargeDto, PayChargeDto } from './dto/subscription-charge.dto';
import {
  CancelSubscriptionDto,
  ChangePlanDto,
  PauseSubscriptionDto,
  UserSubscriptionQueryDto,
} from './dto/subscription.dto';
import { SiteUserEntity } from './entities/site-user.entity';
import { SubscriptionEntryEntity } from './entities/subscription-entry.entity';
import { UserSubscriptionEntity } from './entities/user-subscription.entity';
import { ChargeResult, PaidCharge, recordSubscription, SubscriptionBilling } from './subscription-billing';
import { SubscriptionPeriods } from './subscription-periods';
import { PlanChange, SubscriptionPlans } from './subscription-plans';
import { addInterval, assertSubscriptionMove } from './subscription-status';
import { UsersRepository } from './users.repository';
import { USER_EVENTS } from './users.events';

export type { ChargeResult, PaidCharge } from './subscription-billing';
export type { PlanChange } from './subscription-plans';

export const SUBSCRIPTION_RESUME_JOB = 'users.subscription-resume';
export const SUBSCRIPTION_PERIODS_JOB = 'users.subscription-periods';

const NEWEST: KeysetColumn[] = [{ expr: 's.id', type: 'number' }];

/**
 * Site users' subscriptions to recurring products (docs/users.md): started by a paid order's
 * recurring line (the orders module's `order.subscription_requested`), then paused, resumed,
 * canceled, moved to another plan, charged and paid through the owner's or an operator's routes
 * (one service for both). Each change takes the subscription's row lock; the billing follows
 * Stripe's model: no period without its charge (subscription-billing.ts, subscription-periods.ts,
 * subscription-plans.ts). Periods roll and pauses end by queued jobs.
 */
@Injectable()
export class UserSubscriptionsService implements OnModuleInit {
  private readonly listReads = new ShapedReads<UserSubscriptionEntity>();

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(UserSubscriptionEntity) private readonly subscriptions: Repository<UserSubscriptionEntity>,
    private readonly queue: QueueService,
    private readonly relay: OutboxRelay,
    private readonly billing: SubscriptionBilling,
    private readonly periods: SubscriptionPeriods,
    private readonly plans: SubscriptionPlans,
    private readonly users: UsersRepository,
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

  /** A user's subscriptions, newest first; another site's user is a 404. */
  async list(
    site: SiteContext,
    userId: number,
    query: UserSubscriptionQueryDto,
  ): Promise<Page<UserSubscriptionEntity>> {
    await findInSiteOrFail(this.dataSource.manager, SiteUserEntity, site, userId, 'User');
    return this.listOf(userId, query);
  }

  /** The signed-in user's own (their session already names them). */
  async listOf(userId: number, query: UserSubscriptionQueryDto): Promise<Page<UserSubscriptionEntity>> {
    const { entities } = await this.listReads.read(
      { ...keysetShape(query), status: Boolean(query.status) },
      { userId, status: query.status, ...keysetParameters(NEWEST, query) },
      (shape) => {
        const qb = this.subscriptions.createQueryBuilder('s').where('s.user_id = :userId');
        if (shape.status) qb.andWhere('s.status = :status');
        return applyKeysetShape(qb, NEWEST, shape);
      },
    );
    return keysetPage(entities, query.limit, (s) => [s.id]);
  }

  /** `trialing | active → paused`, until `resumesAt` (a queued job) or a resume. */
  pause(site: SiteContext, userId: number, id: number, dto: PauseSubscriptionDto): Promise<UserSubscriptionEntity> {
    if (dto.resumesAt && dto.resumesAt.getTime() <= this.clock.now().getTime())
      throw new ValidationProblem([{ path: 'resumesAt', message: 'must be in the future' }]);
    return this.change(site, userId, id, async (em, sub) => {
      assertSubscriptionMove(sub.status, 'pause');
      const previous = sub.status;
      sub.status = 'paused';
      sub.pausedAt = this.clock.now();
      sub.resumesAt = dto.resumesAt ?? null;
      sub.version += 1;
      const saved = await em.save(sub);
      if (saved.resumesAt)
        await this.queue.send(
          SUBSCRIPTION_RESUME_JOB,
          { id: saved.id, version: saved.version },
          { startAfter: saved.resumesAt, em },
        );
      await recordSubscription(em, site, USER_EVENTS.subscriptionUpdated, saved, previous, 'paused');
      return saved;
    });
  }

  /** `paused → active`; a period that ended meanwhile starts again now, with its charge. */
  resume(site: SiteContext, userId: number, id: number): Promise<UserSubscriptionEntity> {
    return this.change(site, userId, id, async (em, sub) => {
      assertSubscriptionMove(sub.status, 'resume');
      return this.periods.resume(em, site, sub);
    });
  }

  /** Now (`→ canceled`), or at the end of the period (`cancelAtPeriodEnd`; the status stays until then). */
  cancel(site: SiteContext, userId: number, id: number, dto: CancelSubscriptionDto): Promise<UserSubscriptionEntity> {
    return this.change(site, userId, id, async (em, sub) => {
      const previous = sub.status;
      sub.cancelReason = dto.reason ?? sub.cancelReason;
      sub.version += 1;
      if (dto.atPeriodEnd) {
        assertSubscriptionMove(sub.status, 'cancel_at_period_end', sub.cancelAtPeriodEnd);
        sub.cancelAtPeriodEnd = true;
        const saved = await em.save(sub);
        await recordSubscription(em, site, USER_EVENTS.subscriptionUpdated, saved, previous, 'cancel_scheduled');
        return saved;
      }
      assertSubscriptionMove(sub.status, 'cancel');
      sub.status = 'canceled';
      sub.canceledAt = this.clock.now();
      sub.cancelAtPeriodEnd = false;
      sub.resumesAt = null;
      const saved = await em.save(sub);
      await recordSubscription(em, site, USER_EVENTS.subscriptionCanceled, saved, previous, 'canceled');
      return saved;
    });
  }

  /** Another plan (subscription-plans.ts); `dto.prorate` comes only from the operator's route. */
  changePlan(site: SiteContext, userId: number, id: number, dto: ChangePlanDto): Promise<PlanChange> {
    return this.change(site, userId, id, (em, sub) => this.plans.change(em, site, sub, dto));
  }

  /** An operator's ad-hoc charge (not part of a period). */
  charge(site: SiteContext, userId: number, id: number, dto: CreateChargeDto): Promise<ChargeResult> {
    return this.change(site, userId, id, (em, sub) => {
      assertSubscriptionMove(sub.status, 'charge');
      if (dto.currency && dto.currency !== sub.currency)
        throw new ValidationProblem([{ path: 'currency', message: `must be the subscription's, ${sub.currency}` }]);
      return this.billing.charge(em, site, sub, dto);
    });
  }

  /** Pays a pending line of the subscription (subscription-billing.ts); another subscription's is a 404. */
  pay(site: SiteContext, userId: number, id: number, chargeId: number, dto: PayChargeDto): Promise<PaidCharge> {
    return this.change(site, userId, id, async (em, sub) => {
      const entry = await em.findOne(SubscriptionEntryEntity, {
        where: { id: chargeId, subscriptionId: sub.id, siteId: site.id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!entry) throw new NotFoundProblem('Charge');
      return this.billing.pay(em, site, sub, entry, dto);
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
   * (an `initial` line). Keyed by the line: a second delivery starts nothing. Answers the subscription, or null when there was nothing to start.
   */
  async startFromOrder(em: EntityManager, event: OutboxEvent): Promise<UserSubscriptionEntity | null> {
    if (event.siteId === null) return null;
    const p = event.payload as unknown as SubscriptionRequestedPayload;
    const scope: EventScope = { id: event.siteId, accountId: event.accountId };
    const userId = await this.customerOf(em, scope, p);
    if (userId === null) return null;
    const now = this.clock.now();
    const inserted = await em
      .createQueryBuilder()
      .insert()
      .into(UserSubscriptionEntity)
      .values({
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
        processor: 'manual',
        orderId: p.orderId,
        orderLineId: p.lineId,
      })
      .orIgnore()
      .returning(['id'])
      .execute();
    if ((inserted.raw as unknown[]).length === 0) return null;
    const sub = await em.findOneOrFail(UserSubscriptionEntity, { where: { orderLineId: p.lineId } });
    await recordSubscription(em, scope, USER_EVENTS.subscriptionCreated, sub, null, 'created');
    await this.billing.initial(em, sub);
    return sub;
  }

  /** One change of one subscription of the user, under its row lock; another's is a 404. */
  private change<R>(
    site: SiteContext,
    userId: number,
    id: number,
    fn: (em: EntityManager, sub: UserSubscriptionEntity) => Promise<R>,
  ): Promise<R> {
    return this.dataSource.transaction(async (em) => {
      const sub = await em.findOne(UserSubscriptionEntity, {
        where: { id, userId, siteId: site.id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!sub) throw new NotFoundProblem('Subscription');
      return fn(em, sub);
    });
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
    const { rows } = await sql<{ customer_email: string | null }>(
      em,
      'SELECT customer_email FROM orders WHERE id = $1 AND site_id = $2',
      [p.orderId, scope.id],
    );
    const email = rows[0]?.customer_email;
    if (!email) return null;
    const { user, created } = await this.users.findOrCreate(em, scope.id!, email);
    if (created) await recordEvent(em, scope, USER_EVENTS.created, { id: user.id, status: user.status });
    return user.id;
  }
}
