import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { CatalogService, PricedLine } from '../catalog/catalog.service';
import { ConflictProblem, NotFoundProblem, ValidationProblem } from '../common/errors/problems';
import { OutboxEvent, OutboxRelay } from '../common/outbox/outbox-relay.service';
import { EventScope, recordEvent } from '../common/outbox/record-event';
import { applyKeyset, KeysetColumn, keysetPage, keysetParameters, Page } from '../common/pagination/page';
import { QueueService } from '../common/queue/queue.service';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { ShapedReads } from '../database/fast-read';
import { sql } from '../database/sql';
import { ORDERS_EVENTS, SubscriptionRequestedPayload } from '../orders/orders.events';
import { CreditsService } from './credits.service';
import {
  CancelSubscriptionDto,
  ChangePlanDto,
  CreateChargeDto,
  PauseSubscriptionDto,
  UserSubscriptionQueryDto,
} from './dto/subscription.dto';
import { SiteUserEntity } from './entities/site-user.entity';
import { SubscriptionEntryEntity } from './entities/subscription-entry.entity';
import { UserSubscriptionEntity } from './entities/user-subscription.entity';
import { PaymentProcessors } from './payment-processor';
import { UsersRepository } from './users.repository';
import { SiteDirectory } from '../common/auth/principal';
import { addInterval, assertSubscriptionMove, proration, SubscriptionStatus } from './subscription-status';
import { SubscriptionChange, USER_EVENTS } from './users.events';

export const SUBSCRIPTION_RESUME_JOB = 'users.subscription-resume';
export const SUBSCRIPTION_PERIODS_JOB = 'users.subscription-periods';

const NEWEST: KeysetColumn[] = [{ expr: 's.id', type: 'number' }];
const PERIOD_BATCH = 200;

export interface PlanChange {
  subscription: UserSubscriptionEntity;
  prorations: SubscriptionEntryEntity[];
}

export interface ChargeResult {
  charge: SubscriptionEntryEntity;
  creditBalance: number | null;
}

/**
 * Site users' subscriptions to recurring products (docs/users.md): started by a paid order's
 * recurring line (the orders module's `order.subscription_requested`), then paused, resumed,
 * canceled, moved to another plan and charged through the owner's or an operator's routes. Each
 * change takes the subscription's row lock and follows the rules of subscription-status.ts;
 * periods roll, scheduled cancels happen and pauses end by queued jobs.
 */
@Injectable()
export class UserSubscriptionsService implements OnModuleInit {
  private readonly reads = new ShapedReads<UserSubscriptionEntity>();

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(UserSubscriptionEntity) private readonly subscriptions: Repository<UserSubscriptionEntity>,
    private readonly queue: QueueService,
    private readonly relay: OutboxRelay,
    private readonly credits: CreditsService,
    private readonly catalog: CatalogService,
    private readonly processors: PaymentProcessors,
    private readonly users: UsersRepository,
    private readonly sites: SiteDirectory,
  ) {}

  onModuleInit(): void {
    this.relay.subscribe(ORDERS_EVENTS.subscriptionRequested.name, async (em, event) => {
      await this.startFromOrder(em, event);
    });
    this.queue.register<{ id: number; version: number }>(SUBSCRIPTION_RESUME_JOB, (data) => this.resumeDue(data), {
      retryLimit: 5,
    });
    this.queue.register(SUBSCRIPTION_PERIODS_JOB, async () => void (await this.rollPeriods()), {
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
    const shape = `${query.status ? 1 : 0}${query.cursor ? 1 : 0}:${query.limit}`;
    const { entities } = await this.reads.read(
      shape,
      { userId, status: query.status, ...keysetParameters(NEWEST, query) },
      () => {
        const qb = this.subscriptions.createQueryBuilder('s').where('s.user_id = :userId');
        if (query.status) qb.andWhere('s.status = :status');
        return applyKeyset(qb, NEWEST, query);
      },
    );
    return keysetPage(entities, query.limit, (s) => [s.id]);
  }

  /** `trialing | active → paused`, until `resumesAt` (a queued job) or a resume. */
  pause(site: SiteContext, userId: number, id: number, dto: PauseSubscriptionDto): Promise<UserSubscriptionEntity> {
    if (dto.resumesAt && dto.resumesAt.getTime() <= Date.now())
      throw new ValidationProblem([{ path: 'resumesAt', message: 'must be in the future' }]);
    return this.change(site, userId, id, async (em, sub) => {
      assertSubscriptionMove(sub.status, 'pause');
      const previous = sub.status;
      sub.status = 'paused';
      sub.pausedAt = new Date();
      sub.resumesAt = dto.resumesAt ?? null;
      sub.version += 1;
      const saved = await em.save(sub);
      if (saved.resumesAt)
        await this.queue.send(
          SUBSCRIPTION_RESUME_JOB,
          { id: saved.id, version: saved.version },
          { startAfter: saved.resumesAt, em },
        );
      await this.record(em, site, USER_EVENTS.subscriptionUpdated, saved, previous, 'paused');
      return saved;
    });
  }

  /** `paused → active`; a period that ended meanwhile starts again now. */
  resume(site: SiteContext, userId: number, id: number): Promise<UserSubscriptionEntity> {
    return this.change(site, userId, id, async (em, sub) => {
      assertSubscriptionMove(sub.status, 'resume');
      return this.resumeIn(em, site, sub);
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
        await this.record(em, site, USER_EVENTS.subscriptionUpdated, saved, previous, 'cancel_scheduled');
        return saved;
      }
      assertSubscriptionMove(sub.status, 'cancel');
      sub.status = 'canceled';
      sub.canceledAt = new Date();
      sub.cancelAtPeriodEnd = false;
      sub.resumesAt = null;
      const saved = await em.save(sub);
      await this.record(em, site, USER_EVENTS.subscriptionCanceled, saved, previous, 'canceled');
      return saved;
    });
  }

  /**
   * Moves to another recurring product (or variant, or quantity) of the same currency; the
   * status stays. The proration of the period left is recorded, never charged: a credit for the
   * unused old plan and a charge for the new one over the same time; a new billing interval
   * starts a new period now, so its charge is a full period.
   */
  changePlan(site: SiteContext, userId: number, id: number, dto: ChangePlanDto): Promise<PlanChange> {
    return this.change(site, userId, id, async (em, sub) => {
      assertSubscriptionMove(sub.status, 'change_plan');
      const plan = await this.planOf(em, site, dto.productId, dto.variantId ?? null);
      if (plan.currency !== sub.currency)
        throw new ValidationProblem([
          { path: 'productId', message: `is priced in ${plan.currency}; the subscription is in ${sub.currency}` },
        ]);
      const quantity = dto.quantity ?? sub.quantity;
      if (plan.productId === sub.productId && plan.variantId === sub.variantId && quantity === sub.quantity)
        throw new ConflictProblem('plan_unchanged', 'The subscription is already on this plan');
      const now = new Date();
      const newInterval =
        plan.recurring.interval !== sub.interval || plan.recurring.intervalCount !== sub.intervalCount;
      const oldAmount = sub.unitAmount * sub.quantity;
      const newAmount = plan.unitAmount * quantity;
      const period = { start: sub.currentPeriodStart, end: sub.currentPeriodEnd };
      const { credit, charge, fraction } = proration(period, now, oldAmount, newAmount);
      const prorations: SubscriptionEntryEntity[] = [];
      if (dto.prorate !== false) {
        const percent = Math.round(fraction * 100);
        const lines: Array<[number, string]> = [
          [credit, `Unused time on the previous plan (${percent}% of the period)`],
          [
            newInterval ? newAmount : charge,
            newInterval
              ? 'The new plan, a full period from now'
              : `The new plan for the rest of the period (${percent}%)`,
          ],
        ];
        for (const [amount, description] of lines)
          if (amount !== 0)
            prorations.push(
              await em.save(
                em.create(SubscriptionEntryEntity, {
                  siteId: site.id,
                  subscriptionId: sub.id,
                  kind: 'proration',
                  amount,
                  currency: sub.currency,
                  description,
                  status: 'recorded',
                  paidWith: null,
                  creditEntryId: null,
                  processorChargeId: null,
                  paidAt: null,
                }),
              ),
            );
      }
      const previous = sub.status;
      Object.assign(sub, {
        productId: plan.productId,
        variantId: plan.variantId,
        quantity,
        unitAmount: plan.unitAmount,
        interval: plan.recurring.interval,
        intervalCount: plan.recurring.intervalCount,
        version: sub.version + 1,
      });
      if (newInterval) {
        sub.currentPeriodStart = now;
        sub.currentPeriodEnd = addInterval(now, sub.interval, sub.intervalCount);
      }
      const saved = await em.save(sub);
      await this.record(em, site, USER_EVENTS.subscriptionUpdated, saved, previous, 'plan_changed');
      return { subscription: saved, prorations };
    });
  }

  /**
   * Records a charge: paid from the user's credits when asked and the balance allows (one credit
   * per minor unit), otherwise handed to the subscription's processor (the built-in manual one
   * leaves it `pending`).
   */
  charge(site: SiteContext, userId: number, id: number, dto: CreateChargeDto): Promise<ChargeResult> {
    return this.change(site, userId, id, async (em, sub) => {
      assertSubscriptionMove(sub.status, 'charge');
      if (dto.currency && dto.currency !== sub.currency)
        throw new ValidationProblem([{ path: 'currency', message: `must be the subscription's, ${sub.currency}` }]);
      let entry = await em.save(
        em.create(SubscriptionEntryEntity, {
          siteId: site.id,
          subscriptionId: sub.id,
          kind: 'charge',
          amount: dto.amount,
          currency: sub.currency,
          description: dto.description,
          status: 'pending',
          paidWith: null,
          creditEntryId: null,
          processorChargeId: null,
          paidAt: null,
        }),
      );
      let creditBalance: number | null = null;
      if (dto.payWithCredits) {
        const paid = await this.payFromCredits(em, site, sub, entry);
        if (paid) creditBalance = paid.balance;
      }
      if (entry.status === 'pending') entry = await this.collect(em, sub, entry);
      else entry = await em.save(entry);
      await this.recordCharge(em, site, sub, entry);
      return { charge: entry, creditBalance };
    });
  }

  /** The resume job of a pause with a date: only if that pause is still the subscription's state. */
  async resumeDue({ id, version }: { id: number; version: number }): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      const sub = await em.findOne(UserSubscriptionEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!sub || sub.status !== 'paused' || sub.version !== version) return;
      await this.resumeIn(em, await this.scopeOf(sub.siteId), sub);
    });
  }

  /**
   * The period job (every minute): subscriptions whose period ended are canceled (a scheduled
   * cancel), leave their trial, or renew (the next period, and its charge through the
   * processor). Claimed with SKIP LOCKED, so instances share the work. Answers how many moved.
   */
  async rollPeriods(now = new Date()): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.dataSource.transaction(async (em) => {
        const due = await em
          .createQueryBuilder(UserSubscriptionEntity, 's')
          .where("s.status IN ('trialing', 'active')")
          .andWhere('s.current_period_end <= :now', { now })
          .orderBy('s.current_period_end', 'ASC')
          .limit(PERIOD_BATCH)
          .setLock('pessimistic_write')
          .setOnLocked('skip_locked')
          .getMany();
        const scopes = new Map<number, EventScope>();
        for (const sub of due) {
          const scope = scopes.get(sub.siteId) ?? (await this.scopeOf(sub.siteId));
          scopes.set(sub.siteId, scope);
          await this.endPeriod(em, scope, sub, now);
        }
        return due.length;
      });
      total += n;
      if (n < PERIOD_BATCH) return total;
    }
  }

  /**
   * `order.subscription_requested` (at least once): the subscription of one recurring line of a
   * paid order, for the user who placed it signed in, else the site user of the order's address
   * (made now if there is none: they can sign in with it). Keyed by the line: a second delivery
   * starts nothing. Answers the subscription, or null when there was nothing to start.
   */
  async startFromOrder(em: EntityManager, event: OutboxEvent): Promise<UserSubscriptionEntity | null> {
    if (event.siteId === null) return null;
    const p = event.payload as unknown as SubscriptionRequestedPayload;
    const scope: EventScope = { id: event.siteId, accountId: event.accountId };
    const userId = await this.customerOf(em, scope, p);
    if (userId === null) return null;
    const now = new Date();
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
    await this.record(em, scope, USER_EVENTS.subscriptionCreated, sub, null, 'created');
    return sub;
  }

  // ---------------------------------------------------------------------------------------------

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

  private async resumeIn(
    em: EntityManager,
    scope: EventScope,
    sub: UserSubscriptionEntity,
  ): Promise<UserSubscriptionEntity> {
    const previous = sub.status;
    const now = new Date();
    sub.status = 'active';
    sub.pausedAt = null;
    sub.resumesAt = null;
    sub.version += 1;
    if (sub.currentPeriodEnd.getTime() <= now.getTime()) {
      sub.currentPeriodStart = now;
      sub.currentPeriodEnd = addInterval(now, sub.interval, sub.intervalCount);
    }
    const saved = await em.save(sub);
    await this.record(em, scope, USER_EVENTS.subscriptionUpdated, saved, previous, 'resumed');
    return saved;
  }

  private async endPeriod(em: EntityManager, scope: EventScope, sub: UserSubscriptionEntity, now: Date): Promise<void> {
    const previous = sub.status;
    sub.version += 1;
    if (sub.cancelAtPeriodEnd) {
      sub.status = 'canceled';
      sub.canceledAt = sub.currentPeriodEnd;
      sub.cancelAtPeriodEnd = false;
      const saved = await em.save(sub);
      await this.record(em, scope, USER_EVENTS.subscriptionCanceled, saved, previous, 'canceled');
      return;
    }
    // The next period: from the end of this one, skipping any the job missed entirely.
    let start = sub.currentPeriodEnd;
    let end = addInterval(start, sub.interval, sub.intervalCount);
    while (end.getTime() <= now.getTime()) {
      start = end;
      end = addInterval(start, sub.interval, sub.intervalCount);
    }
    sub.currentPeriodStart = start;
    sub.currentPeriodEnd = end;
    const trialEnded = sub.status === 'trialing';
    sub.status = 'active';
    const saved = await em.save(sub);
    await this.record(
      em,
      scope,
      USER_EVENTS.subscriptionUpdated,
      saved,
      previous,
      trialEnded ? 'trial_ended' : 'renewed',
    );
    const renewal = await em.save(
      em.create(SubscriptionEntryEntity, {
        siteId: sub.siteId,
        subscriptionId: sub.id,
        kind: 'renewal',
        amount: sub.unitAmount * sub.quantity,
        currency: sub.currency,
        description: `Renewal ${start.toISOString().slice(0, 10)} to ${end.toISOString().slice(0, 10)}`,
        status: 'pending',
        paidWith: null,
        creditEntryId: null,
        processorChargeId: null,
        paidAt: null,
      }),
    );
    await this.recordCharge(em, scope, saved, await this.collect(em, saved, renewal));
  }

  /** Pays the charge from credits if the balance allows; null (and nothing taken) otherwise. */
  private async payFromCredits(
    em: EntityManager,
    site: SiteContext,
    sub: UserSubscriptionEntity,
    entry: SubscriptionEntryEntity,
  ): Promise<{ balance: number } | null> {
    try {
      const spent = await this.credits.spendIn(em, site, sub.userId, {
        amount: entry.amount,
        reason: `Subscription ${sub.id}: ${entry.description}`.slice(0, 500),
        reference: `subscription-charge:${entry.id}`,
      });
      Object.assign(entry, { status: 'paid', paidWith: 'credits', creditEntryId: spent.entry.id, paidAt: new Date() });
      return { balance: spent.balance };
    } catch (err) {
      // A short balance takes nothing (the check comes before any write): the processor's turn.
      if (err instanceof ConflictProblem && err.code === 'insufficient_credits') return null;
      throw err;
    }
  }

  /** Hands a pending charge to the subscription's processor. */
  private async collect(
    em: EntityManager,
    sub: UserSubscriptionEntity,
    entry: SubscriptionEntryEntity,
  ): Promise<SubscriptionEntryEntity> {
    const processor = this.processors.get(sub.processor);
    const outcome = await processor.charge({
      siteId: sub.siteId,
      subscriptionId: sub.id,
      processorSubscriptionId: sub.processorSubscriptionId,
      amount: entry.amount,
      currency: entry.currency,
      description: entry.description,
      entryId: entry.id,
    });
    entry.processorChargeId = outcome.processorChargeId;
    if (outcome.status === 'paid')
      Object.assign(entry, { status: 'paid', paidWith: processor.name, paidAt: new Date() });
    return em.save(entry);
  }

  /** A recurring product (and variant) of the site as a plan: 400 naming the field otherwise. */
  private async planOf(
    em: EntityManager,
    site: SiteContext,
    productId: number,
    variantId: number | null,
  ): Promise<PricedLine & { recurring: NonNullable<PricedLine['recurring']> }> {
    let line: PricedLine;
    try {
      [line] = await this.catalog.priceLines(em, site, [{ productId, variantId, quantity: 1 }]);
    } catch (err) {
      if (!(err instanceof ValidationProblem)) throw err;
      const field = err.errors?.[0]?.path.endsWith('variantId') ? 'variantId' : 'productId';
      throw new ValidationProblem([{ path: field, message: err.errors?.[0]?.message ?? 'is not for sale' }]);
    }
    if (!line.recurring)
      throw new ValidationProblem([{ path: 'productId', message: `product ${productId} is not a recurring product` }]);
    return line as PricedLine & { recurring: NonNullable<PricedLine['recurring']> };
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

  /** A site as events and jobs need it, from the site directory's cache. */
  private async scopeOf(siteId: number): Promise<SiteContext> {
    const site = await this.sites.findById(siteId);
    if (!site) throw new Error(`Site ${siteId} is gone`);
    return site;
  }

  private record(
    em: EntityManager,
    scope: EventScope,
    event: typeof USER_EVENTS.subscriptionUpdated,
    sub: UserSubscriptionEntity,
    previousStatus: SubscriptionStatus | null,
    change: SubscriptionChange,
  ): Promise<void> {
    return recordEvent(em, scope, event, {
      id: sub.id,
      userId: sub.userId,
      productId: sub.productId,
      variantId: sub.variantId,
      status: sub.status,
      previousStatus,
      change,
      currentPeriodEnd: sub.currentPeriodEnd.toISOString(),
      cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
    });
  }

  private recordCharge(
    em: EntityManager,
    scope: EventScope,
    sub: UserSubscriptionEntity,
    entry: SubscriptionEntryEntity,
  ): Promise<void> {
    return recordEvent(em, scope, USER_EVENTS.subscriptionCharged, {
      id: entry.id,
      subscriptionId: sub.id,
      userId: sub.userId,
      kind: entry.kind as 'charge' | 'renewal',
      amount: entry.amount,
      currency: entry.currency,
      status: entry.status as 'pending' | 'paid',
      paidWith: entry.paidWith,
    });
  }
}
