import { Injectable } from '@nestjs/common';
import { EntityManager, LessThanOrEqual } from 'typeorm';
import { EventScope } from '../../common/outbox/record-event';
import { Clock } from '../../common/scheduling/clock';
import { PERIOD_ENTRY_KINDS, SubscriptionEntryEntity } from '../entities/subscription-entry.entity';
import { UserSubscriptionEntity } from '../entities/user-subscription.entity';
import { SubscriptionBilling } from './subscription-billing';
import { recordSubscription } from './subscription-ledger';
import { nextChargeAttempt } from './subscription-status';
import { USER_EVENTS } from '../users.events';

/** A processor's failed attempt at a line (a declined card, authentication required, no payment method). */
export interface ChargeFailure {
  /** The attempt it was (ChargeRequest.attempt): an attempt already recorded changes nothing. */
  attempt: number;
  code: string;
  message: string;
}

const isPeriodLine = (entry: SubscriptionEntryEntity) => (PERIOD_ENTRY_KINDS as readonly string[]).includes(entry.kind);

/**
 * What a processor answers later about a line it was asked for (docs/payments.md,
 * "Subscriptions"): paid, a failed attempt with our next one planned, and the period job's
 * retries. Runs in the caller's transaction, under the subscription's row lock.
 */
@Injectable()
export class SubscriptionAttempts {
  constructor(
    private readonly billing: SubscriptionBilling,
    private readonly clock: Clock,
  ) {}

  /**
   * A processor collected a pending line (its job's answer or its webhook): paid with the
   * processor and its charge id, as `pay` would; false when the line is no longer pending (the
   * job and the webhook both report one payment: the second changes nothing).
   */
  async settle(
    em: EntityManager,
    scope: EventScope,
    sub: UserSubscriptionEntity,
    entry: SubscriptionEntryEntity,
    paid: { processor: string; chargeId: string },
  ): Promise<boolean> {
    if (entry.status !== 'pending') return false;
    this.billing.markPaid(entry, paid.processor);
    Object.assign(entry, { processorChargeId: paid.chargeId, nextAttemptAt: null });
    await em.save(entry);
    await this.billing.received(em, scope, sub, entry);
    return true;
  }

  /**
   * A processor's attempt at a pending line failed: recorded on the line with our next attempt
   * (subscription-status.ts, `nextChargeAttempt`, which the period job makes); a period line of an
   * `active` subscription makes it `past_due` with its dunning window, as a line left `pending`
   * does. False when that attempt was recorded already (the job's answer and the webhook).
   */
  async failed(
    em: EntityManager,
    scope: EventScope,
    sub: UserSubscriptionEntity,
    entry: SubscriptionEntryEntity,
    failure: ChargeFailure,
  ): Promise<boolean> {
    if (entry.status !== 'pending' || failure.attempt <= entry.chargeAttempts) return false;
    const previous = sub.status;
    if (isPeriodLine(entry) && (previous === 'active' || previous === 'trialing')) await this.billing.fallDue(em, sub);
    const now = this.clock.now();
    const retried = sub.status === 'active' || sub.status === 'trialing' || sub.status === 'past_due';
    Object.assign(entry, {
      chargeAttempts: failure.attempt,
      failureCode: failure.code.slice(0, 100),
      failureMessage: failure.message.slice(0, 500),
      failedAt: now,
      nextAttemptAt: retried
        ? nextChargeAttempt(now, failure.attempt, sub.status === 'past_due' ? sub.unpaidCancelAt : null)
        : null,
    });
    await em.save(entry);
    if (sub.status !== previous) {
      await em.save(sub);
      await recordSubscription(em, scope, USER_EVENTS.subscriptionUpdated, sub, previous, 'payment_due');
    }
    return true;
  }

  /** The period job: asks the processor again for the subscription's lines whose retry came (`nextAttemptAt`). */
  async retryDue(em: EntityManager, scope: EventScope, sub: UserSubscriptionEntity, now: Date): Promise<void> {
    const due = await em.find(SubscriptionEntryEntity, {
      where: { subscriptionId: sub.id, status: 'pending', nextAttemptAt: LessThanOrEqual(now) },
      order: { id: 'ASC' },
    });
    for (let entry of due) {
      await this.billing.askProcessor(em, sub, entry);
      entry = await em.save(entry);
      if (entry.status === 'paid') await this.billing.received(em, scope, sub, entry);
    }
  }
}
