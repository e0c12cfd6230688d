import { EntityManager } from 'typeorm';
import { EventScope, recordEvent } from '../../common/outbox/record-event';
import { SubscriptionEntryEntity, SubscriptionEntryKind } from '../entities/subscription-entry.entity';
import { UserSubscriptionEntity } from '../entities/user-subscription.entity';
import { SubscriptionStatus } from './subscription-status';
import { SubscriptionChange, USER_EVENTS } from '../users.events';

/*
 * The ledger's lines and the events of a subscription, as every part of the subscriptions
 * (billing, plans, periods, jobs, the operator's moves) writes them (docs/users.md, "Subscriptions").
 */

/** A new line of the subscription's ledger, pending unless `fields` say otherwise (not saved). */
export function ledgerLine(
  em: EntityManager,
  sub: UserSubscriptionEntity,
  kind: SubscriptionEntryKind,
  amount: number,
  fields: Partial<SubscriptionEntryEntity>,
): SubscriptionEntryEntity {
  return em.create(SubscriptionEntryEntity, {
    siteId: sub.siteId,
    subscriptionId: sub.id,
    kind,
    amount,
    currency: sub.currency,
    description: '',
    status: 'pending',
    paidWith: null,
    creditEntryId: null,
    processorChargeId: null,
    paidAt: null,
    periodStart: null,
    periodEnd: null,
    creditApplied: 0,
    chargeAttempts: 0,
    failureCode: null,
    failureMessage: null,
    failedAt: null,
    nextAttemptAt: null,
    ...fields,
  });
}

/** Records `user.subscription.charged` for a line. */
export function recordCharge(
  em: EntityManager,
  scope: EventScope,
  sub: UserSubscriptionEntity,
  entry: SubscriptionEntryEntity,
): Promise<void> {
  return recordEvent(em, scope, USER_EVENTS.subscriptionCharged, {
    id: entry.id,
    subscriptionId: sub.id,
    userId: sub.userId,
    kind: entry.kind as 'charge' | 'renewal' | 'proration',
    amount: entry.amount,
    currency: entry.currency,
    status: entry.status as 'pending' | 'paid',
    paidWith: entry.paidWith,
  });
}

/** Records a change of a subscription (`user.subscription.created|updated|canceled`). */
export function recordSubscription(
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
