import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SiteDirectory } from '../../common/auth/principal';
import { NotFoundProblem, ValidationProblem } from '../../common/errors/problems';
import { SiteContext } from '../../common/tenancy/site-context';
import { CreateChargeDto, PayChargeDto } from '../dto/subscription-charge.dto';
import { SubscriptionEntryEntity, SubscriptionEntryStatus } from '../entities/subscription-entry.entity';
import { UserSubscriptionEntity } from '../entities/user-subscription.entity';
import { ChargeResult, PaidCharge, SubscriptionBilling } from './subscription-billing';
import { ChargeFailure, SubscriptionAttempts } from './subscription-attempts';
import { changeSubscription } from './subscription-lock';
import { assertSubscriptionMove, SubscriptionStatus } from './subscription-status';

export type { ChargeResult, PaidCharge } from './subscription-billing';
export type { ChargeFailure } from './subscription-attempts';

/** A ledger line as a processor's adapter sees it (its charge job, its webhook). */
export interface ProcessorCharge {
  siteId: number;
  subscriptionId: number;
  entryId: number;
  userId: number;
  processor: string;
  processorMode: 'test' | 'live' | null;
  subscriptionStatus: SubscriptionStatus;
  status: SubscriptionEntryStatus;
  /** What the processor is asked for: the line's amount less the balance applied (minor units). */
  amountDue: number;
  currency: string;
  description: string;
  /** Failed attempts recorded so far. */
  attempts: number;
}

/**
 * The money of a subscription outside its periods (docs/users.md, "Subscriptions"): an operator's
 * ad-hoc charge, and paying a pending line, by an operator's route or a processor's job or webhook.
 * The ledger's rules are subscription-billing.ts's; this takes the row lock and checks the request.
 */
@Injectable()
export class SubscriptionChargesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly billing: SubscriptionBilling,
    private readonly attempts: SubscriptionAttempts,
    private readonly sites: SiteDirectory,
  ) {}

  /** An operator's ad-hoc charge (not part of a period). */
  charge(site: SiteContext, userId: number, id: number, dto: CreateChargeDto): Promise<ChargeResult> {
    return changeSubscription(this.dataSource, site, userId, id, (em, sub) => {
      assertSubscriptionMove(sub.status, 'charge');
      if (dto.currency && dto.currency !== sub.currency)
        throw new ValidationProblem([{ path: 'currency', message: `must be the subscription's, ${sub.currency}` }]);
      return this.billing.charge(em, site, sub, dto);
    });
  }

  /** Pays a pending line of the subscription (subscription-billing.ts); another subscription's is a 404. */
  pay(site: SiteContext, userId: number, id: number, chargeId: number, dto: PayChargeDto): Promise<PaidCharge> {
    return changeSubscription(this.dataSource, site, userId, id, async (em, sub) => {
      const entry = await em.findOne(SubscriptionEntryEntity, {
        where: { id: chargeId, subscriptionId: sub.id, siteId: site.id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!entry) throw new NotFoundProblem('Charge');
      return this.billing.pay(em, site, sub, entry, dto);
    });
  }

  /** The line `entryId` of the site's subscription, as a processor's adapter needs it; null when there is none. */
  async processorCharge(
    siteId: number,
    subscriptionId: number,
    entryId: number,
    em: EntityManager = this.dataSource.manager,
  ): Promise<ProcessorCharge | null> {
    const sub = await em.findOne(UserSubscriptionEntity, { where: { id: subscriptionId, siteId } });
    const entry =
      sub && (await em.findOne(SubscriptionEntryEntity, { where: { id: entryId, subscriptionId, siteId } }));
    if (!sub || !entry) return null;
    return {
      siteId,
      subscriptionId,
      entryId,
      userId: sub.userId,
      processor: sub.processor,
      processorMode: sub.processorMode,
      subscriptionStatus: sub.status,
      status: entry.status,
      amountDue: entry.amount - entry.creditApplied,
      currency: entry.currency,
      description: entry.description,
      attempts: entry.chargeAttempts,
    };
  }

  /**
   * `processor` collected the pending line (its job's answer or its webhook, in `em` when given):
   * paid as the pay route would (`user.subscription.charged`; `past_due → active` when no period
   * line is left unpaid). False when it was not pending any more, or is not that processor's.
   */
  settleProcessorCharge(
    siteId: number,
    subscriptionId: number,
    entryId: number,
    paid: { processor: string; chargeId: string },
    em?: EntityManager,
  ): Promise<boolean> {
    return this.underLock(siteId, subscriptionId, entryId, paid.processor, em, (tx, site, sub, entry) =>
      this.attempts.settle(tx, site, sub, entry, paid),
    );
  }

  /**
   * `processor`'s attempt at the pending line failed: recorded with our next attempt, the
   * subscription `past_due` (subscription-attempts.ts, `failed`). False when that attempt was
   * recorded already, or the line is not pending, or not that processor's.
   */
  failProcessorCharge(
    siteId: number,
    subscriptionId: number,
    entryId: number,
    failure: ChargeFailure & { processor: string },
    em?: EntityManager,
  ): Promise<boolean> {
    return this.underLock(siteId, subscriptionId, entryId, failure.processor, em, (tx, site, sub, entry) =>
      this.attempts.failed(tx, site, sub, entry, failure),
    );
  }

  private async underLock(
    siteId: number,
    subscriptionId: number,
    entryId: number,
    processor: string,
    em: EntityManager | undefined,
    fn: (
      em: EntityManager,
      site: SiteContext,
      sub: UserSubscriptionEntity,
      entry: SubscriptionEntryEntity,
    ) => Promise<boolean>,
  ): Promise<boolean> {
    const site = await this.sites.findById(siteId);
    if (!site) return false;
    const run = async (tx: EntityManager) => {
      const sub = await tx.findOne(UserSubscriptionEntity, {
        where: { id: subscriptionId, siteId },
        lock: { mode: 'pessimistic_write' },
      });
      if (!sub || sub.processor !== processor) return false;
      const entry = await tx.findOne(SubscriptionEntryEntity, {
        where: { id: entryId, subscriptionId, siteId },
        lock: { mode: 'pessimistic_write' },
      });
      return entry ? fn(tx, site, sub, entry) : false;
    };
    return em ? run(em) : this.dataSource.transaction(run);
  }
}
