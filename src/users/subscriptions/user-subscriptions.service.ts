import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ValidationProblem } from '../../common/errors/problems';
import { Page } from '../../common/pagination/page';
import { QueueService } from '../../common/queue/queue.service';
import { Clock } from '../../common/scheduling/clock';
import { findInSiteOrFail, SiteContext } from '../../common/tenancy/site-context';
import {
  CancelSubscriptionDto,
  ChangePlanDto,
  PauseSubscriptionDto,
  UserSubscriptionQueryDto,
} from '../dto/subscription.dto';
import { SiteUserEntity } from '../entities/site-user.entity';
import { UserSubscriptionEntity } from '../entities/user-subscription.entity';
import { recordSubscription } from './subscription-ledger';
import { SUBSCRIPTION_RESUME_JOB } from './subscription-jobs.service';
import { changeSubscription } from './subscription-lock';
import { SubscriptionPeriods } from './subscription-periods';
import { PlanChange, SubscriptionPlans } from './subscription-plans';
import { UserSubscriptionsRepository } from './user-subscriptions.repository';
import { assertSubscriptionMove } from './subscription-status';
import { USER_EVENTS } from '../users.events';

export type { PlanChange } from './subscription-plans';

/**
 * Site users' subscriptions to recurring products (docs/users.md): listed, paused, resumed,
 * canceled and moved to another plan through the owner's or an operator's routes (one service
 * for both). Each change takes the subscription's row lock (subscription-lock.ts). Charges and
 * payments are SubscriptionChargesService's; starts from orders, period rolls and timed resumes
 * are SubscriptionJobsService's.
 */
@Injectable()
export class UserSubscriptionsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: UserSubscriptionsRepository,
    private readonly queue: QueueService,
    private readonly periods: SubscriptionPeriods,
    private readonly plans: SubscriptionPlans,
    private readonly clock: Clock,
  ) {}

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
  listOf(userId: number, query: UserSubscriptionQueryDto): Promise<Page<UserSubscriptionEntity>> {
    return this.repository.listOf(userId, query);
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
      sub.unpaidCancelAt = null;
      const saved = await em.save(sub);
      await recordSubscription(em, site, USER_EVENTS.subscriptionCanceled, saved, previous, 'canceled');
      return saved;
    });
  }

  /** Another plan (subscription-plans.ts); `dto.prorate` comes only from the operator's route. */
  changePlan(site: SiteContext, userId: number, id: number, dto: ChangePlanDto): Promise<PlanChange> {
    return this.change(site, userId, id, (em, sub) => this.plans.change(em, site, sub, dto));
  }

  /** One change of one subscription of the user, under its row lock; another's is a 404. */
  private change<R>(
    site: SiteContext,
    userId: number,
    id: number,
    fn: (em: EntityManager, sub: UserSubscriptionEntity) => Promise<R>,
  ): Promise<R> {
    return changeSubscription(this.dataSource, site, userId, id, fn);
  }
}
