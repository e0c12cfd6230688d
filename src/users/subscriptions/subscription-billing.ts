import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import { SitesService } from '../../account/sites.service';
import { ConflictProblem } from '../../common/errors/problems';
import { EventScope } from '../../common/outbox/record-event';
import { Clock } from '../../common/scheduling/clock';
import { SiteContext } from '../../common/tenancy/site-context';
import { dunningDays } from '../../common/tenancy/site-settings';
import { CreditsService } from '../credits/credits.service';
import { CreateChargeDto, PayChargeDto } from '../dto/subscription-charge.dto';
import { PERIOD_ENTRY_KINDS, SubscriptionEntryEntity } from '../entities/subscription-entry.entity';
import { UserSubscriptionEntity } from '../entities/user-subscription.entity';
import { ChargeOutcome, PaymentProcessors } from './payment-processors.service';
import { ledgerLine, recordCharge, recordSubscription } from './subscription-ledger';
import { applyBalance, unpaidCancelAt } from './subscription-status';
import { USER_EVENTS } from '../users.events';

export interface ChargeResult {
  charge: SubscriptionEntryEntity;
  creditBalance: number | null;
}

export interface PaidCharge extends ChargeResult {
  subscription: UserSubscriptionEntity;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * A subscription's ledger and its collection (docs/users.md, "Subscriptions"): every money
 * movement is a line of `user_subscription_entries`. A period line is collected from the
 * subscription's balance first, then from its processor; what the processor leaves pending makes
 * the subscription `past_due` until it is paid, or canceled at the end of the site's dunning
 * window (`unpaidCancelAt`). Runs in the caller's transaction, under the subscription's row lock;
 * the caller saves nothing of the subscription after calling in. A processor's later answers
 * (paid, failed, retried) are subscription-attempts.ts's.
 */
@Injectable()
export class SubscriptionBilling {
  constructor(
    private readonly processors: PaymentProcessors,
    private readonly credits: CreditsService,
    private readonly clock: Clock,
    private readonly sites: SitesService,
  ) {}

  /** The first period's line: paid by the order that started the subscription. */
  initial(em: EntityManager, sub: UserSubscriptionEntity): Promise<SubscriptionEntryEntity> {
    const now = this.clock.now();
    return em.save(
      ledgerLine(em, sub, 'initial', sub.unitAmount * sub.quantity, {
        description: `First period ${day(sub.currentPeriodStart)} to ${day(sub.currentPeriodEnd)}, paid by its order`,
        status: 'paid',
        paidWith: 'order',
        paidAt: now,
        periodStart: sub.currentPeriodStart,
        periodEnd: sub.currentPeriodEnd,
      }),
    );
  }

  /** The line of the period the subscription has just entered (its current one), collected now. */
  renewal(em: EntityManager, scope: EventScope, sub: UserSubscriptionEntity): Promise<SubscriptionEntryEntity> {
    const { currentPeriodStart: start, currentPeriodEnd: end } = sub;
    return this.collect(
      em,
      scope,
      sub,
      ledgerLine(em, sub, 'renewal', sub.unitAmount * sub.quantity, {
        description: `Period ${day(start)} to ${day(end)}`,
        periodStart: start,
        periodEnd: end,
      }),
    );
  }

  /** The unused part of a period (negative), credited to the balance. */
  async credit(
    em: EntityManager,
    sub: UserSubscriptionEntity,
    amount: number,
    period: { start: Date; end: Date },
    description: string,
  ): Promise<SubscriptionEntryEntity> {
    const line = await em.save(
      ledgerLine(em, sub, 'proration', amount, {
        description,
        status: 'recorded',
        periodStart: period.start,
        periodEnd: period.end,
      }),
    );
    sub.balance -= amount;
    await em.save(sub);
    return line;
  }

  /** A positive proration: the new plan over the rest of the current period, collected now. */
  prorate(
    em: EntityManager,
    scope: EventScope,
    sub: UserSubscriptionEntity,
    amount: number,
    description: string,
  ): Promise<SubscriptionEntryEntity> {
    return this.collect(
      em,
      scope,
      sub,
      ledgerLine(em, sub, 'proration', amount, {
        description,
        periodStart: sub.currentPeriodStart,
        periodEnd: sub.currentPeriodEnd,
      }),
    );
  }

  /**
   * An operator's ad-hoc charge (not part of a period: no balance, no change of status): paid from
   * the user's credits when asked and they suffice (one credit per minor unit), otherwise handed
   * to the processor (the built-in manual one leaves it `pending`).
   */
  async charge(
    em: EntityManager,
    site: SiteContext,
    sub: UserSubscriptionEntity,
    dto: CreateChargeDto,
  ): Promise<ChargeResult> {
    let entry = await em.save(ledgerLine(em, sub, 'charge', dto.amount, { description: dto.description }));
    let creditBalance: number | null = null;
    if (dto.payWithCredits) creditBalance = await this.payFromCredits(em, site, sub, entry, false);
    if (entry.status === 'pending') await this.askProcessor(em, sub, entry);
    entry = await em.save(entry);
    await recordCharge(em, site, sub, entry);
    return { charge: entry, creditBalance };
  }

  /**
   * Pays a pending line: `paidOutOfBand` (settled outside Sitebase; `reference` kept as its
   * charge id), `payWithCredits` (409 `insufficient_credits` when short, nothing taken), or the
   * processor asked again. A real processor's adapter calls this from its webhook when a pending
   * charge succeeds. The last unpaid period line of a `past_due` subscription makes it `active`.
   */
  async pay(
    em: EntityManager,
    site: SiteContext,
    sub: UserSubscriptionEntity,
    entry: SubscriptionEntryEntity,
    dto: PayChargeDto,
  ): Promise<PaidCharge> {
    if (entry.status !== 'pending')
      throw new ConflictProblem(
        'transition_forbidden',
        entry.status === 'paid' ? 'The charge is already paid' : 'A credited proration is not a charge to pay',
      );
    let creditBalance: number | null = null;
    if (dto.paidOutOfBand) {
      this.markPaid(entry, 'out_of_band');
      entry.processorChargeId = dto.reference ?? null;
    } else if (dto.payWithCredits) creditBalance = await this.payFromCredits(em, site, sub, entry, true);
    else await this.askProcessor(em, sub, entry);
    entry = await em.save(entry);
    if (entry.status === 'paid') await this.received(em, site, sub, entry);
    return { charge: entry, subscription: sub, creditBalance };
  }

  /** Whether a period line of the subscription waits for its payment. */
  async hasUnpaidPeriodLine(em: EntityManager, sub: UserSubscriptionEntity): Promise<boolean> {
    return em.exists(SubscriptionEntryEntity, {
      where: { subscriptionId: sub.id, status: 'pending', kind: In([...PERIOD_ENTRY_KINDS]) },
    });
  }

  /**
   * Collects a positive period line: the balance first (`paid` with `balance` if it covers it),
   * then the processor for the rest; left `pending`, the subscription becomes `past_due`, to be
   * canceled at the end of the site's dunning window (or of the period, if sooner). A subscription
   * already `past_due` keeps its date: a later charge never extends the window.
   */
  private async collect(
    em: EntityManager,
    scope: EventScope,
    sub: UserSubscriptionEntity,
    draft: SubscriptionEntryEntity,
  ): Promise<SubscriptionEntryEntity> {
    const { applied, due } = applyBalance(sub.balance, draft.amount);
    sub.balance -= applied;
    draft.creditApplied = applied;
    let entry = await em.save(draft);
    let asked: ChargeOutcome['status'] | null = null;
    if (due === 0) this.markPaid(entry, applied > 0 ? 'balance' : null);
    else asked = await this.askProcessor(em, sub, entry);
    entry = await em.save(entry);
    await recordCharge(em, scope, sub, entry);
    const previous = sub.status;
    // `processing`: an attempt is under way; it falls due only if that attempt fails (failed()).
    if (entry.status === 'pending' && asked !== 'processing' && (previous === 'active' || previous === 'trialing'))
      await this.fallDue(em, sub);
    await em.save(sub);
    if (sub.status !== previous)
      await recordSubscription(em, scope, USER_EVENTS.subscriptionUpdated, sub, previous, 'payment_due');
    return entry;
  }

  /** `past_due` until paid or canceled at the end of the site's dunning window from now (or of the period, if sooner). */
  async fallDue(em: EntityManager, sub: UserSubscriptionEntity): Promise<void> {
    const { settings } = await this.sites.profileOf(sub.siteId, em);
    sub.status = 'past_due';
    sub.unpaidCancelAt = unpaidCancelAt(this.clock.now(), dunningDays(settings.subscriptions), sub.currentPeriodEnd);
  }

  /** A line was paid: its event, and a `past_due` subscription with no unpaid period line left is `active` again. */
  async received(
    em: EntityManager,
    scope: EventScope,
    sub: UserSubscriptionEntity,
    entry: SubscriptionEntryEntity,
  ): Promise<void> {
    await recordCharge(em, scope, sub, entry);
    if (sub.status === 'past_due' && !(await this.hasUnpaidPeriodLine(em, sub))) {
      sub.status = 'active';
      sub.unpaidCancelAt = null;
      sub.version += 1;
      await em.save(sub);
      await recordSubscription(em, scope, USER_EVENTS.subscriptionUpdated, sub, 'past_due', 'payment_received');
    }
  }

  /**
   * Asks the subscription's processor for what the line still owes (its amount less the balance
   * applied), as its next attempt; a planned retry is then this one.
   */
  async askProcessor(
    em: EntityManager,
    sub: UserSubscriptionEntity,
    entry: SubscriptionEntryEntity,
  ): Promise<ChargeOutcome['status']> {
    const processor = this.processors.get(sub.processor);
    entry.nextAttemptAt = null;
    const outcome = await processor.charge({
      em,
      attempt: entry.chargeAttempts + 1,
      siteId: sub.siteId,
      subscriptionId: sub.id,
      processorSubscriptionId: sub.processorSubscriptionId,
      amount: entry.amount - entry.creditApplied,
      currency: entry.currency,
      description: entry.description,
      entryId: entry.id,
    });
    entry.processorChargeId = outcome.processorChargeId ?? entry.processorChargeId;
    if (outcome.status === 'paid') this.markPaid(entry, processor.name);
    return outcome.status;
  }

  /**
   * Pays what the line still owes from the user's credits; answers the credit balance after, or
   * null when they were short: a 409 when `required`, else nothing taken and the line unchanged.
   */
  private async payFromCredits(
    em: EntityManager,
    site: SiteContext,
    sub: UserSubscriptionEntity,
    entry: SubscriptionEntryEntity,
    required: boolean,
  ): Promise<number | null> {
    try {
      const spent = await this.credits.spendIn(em, site, sub.userId, {
        amount: entry.amount - entry.creditApplied,
        reason: `Subscription ${sub.id}: ${entry.description}`.slice(0, 500),
        reference: `subscription-charge:${entry.id}`,
      });
      this.markPaid(entry, 'credits');
      entry.creditEntryId = spent.entry.id;
      return spent.balance;
    } catch (err) {
      // A short balance takes nothing (the check comes before any write).
      if (!required && err instanceof ConflictProblem && err.code === 'insufficient_credits') return null;
      throw err;
    }
  }

  markPaid(entry: SubscriptionEntryEntity, paidWith: string | null): void {
    Object.assign(entry, { status: 'paid', paidWith, paidAt: this.clock.now() });
  }
}
