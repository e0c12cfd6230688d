import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { CatalogService, PricedLine } from '../../catalog/catalog.service';
import { ConflictProblem, ValidationProblem } from '../../common/errors/problems';
import { Clock } from '../../common/scheduling/clock';
import { SiteContext } from '../../common/tenancy/site-context';
import { ChangePlanDto } from '../dto/subscription.dto';
import { SubscriptionEntryEntity } from '../entities/subscription-entry.entity';
import { UserSubscriptionEntity } from '../entities/user-subscription.entity';
import { SubscriptionBilling } from './subscription-billing';
import { recordSubscription } from './subscription-ledger';
import { addInterval, assertSubscriptionMove, planChangeLines } from './subscription-status';
import { USER_EVENTS } from '../users.events';

export interface PlanChange {
  subscription: UserSubscriptionEntity;
  /** The ledger lines the change wrote: prorations and, for a new billing interval, its renewal. */
  entries: SubscriptionEntryEntity[];
}

type Plan = PricedLine & { recurring: NonNullable<PricedLine['recurring']> };

/** Moves a subscription to another plan (docs/users.md, "Change plan"), with the lines it owes. */
@Injectable()
export class SubscriptionPlans {
  constructor(
    private readonly catalog: CatalogService,
    private readonly billing: SubscriptionBilling,
    private readonly clock: Clock,
  ) {}

  /**
   * Another recurring product (or variant, or quantity) of the same currency, from `trialing` or
   * `active`. The lines follow `planChangeLines`; `prorate: false` is the operator's alone (the
   * owner's DTO has no such field), and never spares a new billing interval its charge.
   */
  async change(
    em: EntityManager,
    site: SiteContext,
    sub: UserSubscriptionEntity,
    dto: ChangePlanDto,
  ): Promise<PlanChange> {
    assertSubscriptionMove(sub.status, 'change_plan');
    const plan = await this.planOf(em, site, dto.productId, dto.variantId ?? null);
    if (plan.currency !== sub.currency)
      throw new ValidationProblem([
        { path: 'productId', message: `is priced in ${plan.currency}; the subscription is in ${sub.currency}` },
      ]);
    const quantity = dto.quantity ?? sub.quantity;
    if (plan.productId === sub.productId && plan.variantId === sub.variantId && quantity === sub.quantity)
      throw new ConflictProblem('plan_unchanged', 'The subscription is already on this plan');
    const now = this.clock.now();
    const period = { start: sub.currentPeriodStart, end: sub.currentPeriodEnd };
    const lines = planChangeLines({
      status: sub.status,
      period,
      at: now,
      oldAmount: sub.unitAmount * sub.quantity,
      newAmount: plan.unitAmount * quantity,
      newInterval: plan.recurring.interval !== sub.interval || plan.recurring.intervalCount !== sub.intervalCount,
      prorate: dto.prorate !== false,
    });
    const percent = Math.round(lines.fraction * 100);
    const entries: SubscriptionEntryEntity[] = [];
    if (lines.credit !== 0)
      entries.push(
        await this.billing.credit(em, sub, lines.credit, period, `Unused time on the previous plan (${percent}%)`),
      );
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
    if (lines.newPeriod) {
      sub.currentPeriodStart = now;
      sub.currentPeriodEnd = addInterval(now, sub.interval, sub.intervalCount);
    }
    await em.save(sub);
    await recordSubscription(em, site, USER_EVENTS.subscriptionUpdated, sub, previous, 'plan_changed');
    if (lines.charge?.kind === 'renewal') entries.push(await this.billing.renewal(em, site, sub));
    else if (lines.charge)
      entries.push(
        await this.billing.prorate(
          em,
          site,
          sub,
          lines.charge.amount,
          `The new plan for the rest of the period (${percent}%)`,
        ),
      );
    return { subscription: sub, entries };
  }

  /** A recurring product (and variant) of the site as a plan: 400 naming the field otherwise. */
  private async planOf(
    em: EntityManager,
    site: SiteContext,
    productId: number,
    variantId: number | null,
  ): Promise<Plan> {
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
    return line as Plan;
  }
}
