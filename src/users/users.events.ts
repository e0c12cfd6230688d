import { defineEvents, event } from '../common/outbox/events';

export interface UserEventPayload {
  id: number;
  status: 'active' | 'disabled';
}

export interface UserUpdatedPayload extends UserEventPayload {
  /** The fields that changed (`name`, `email`, `metadata`, `status`). */
  fields: string[];
}

export interface UserSignedInPayload {
  id: number;
  sessionId: number;
}

export interface CreditsEventPayload {
  userId: number;
  entryId: number;
  /** Credits added (granted) or taken (spent), always positive. */
  amount: number;
  balance: number;
  reference: string | null;
}

/**
 * What happened to a subscription, in `user.subscription.updated` (and `created`, `canceled`):
 * `payment_due` when a period charge was left unpaid (`past_due`), `payment_received` when the
 * last one was paid (`active` again), `canceled_unpaid` when it was still unpaid at the end of
 * the dunning window or of its period (`cancelReason: unpaid`).
 */
export type SubscriptionChange =
  | 'created'
  | 'paused'
  | 'resumed'
  | 'plan_changed'
  | 'cancel_scheduled'
  | 'renewed'
  | 'trial_ended'
  | 'payment_due'
  | 'payment_received'
  | 'canceled'
  | 'canceled_unpaid';

export interface SubscriptionEventPayload {
  id: number;
  userId: number;
  productId: number;
  variantId: number | null;
  status: string;
  /** The status before the change; null for `created`. */
  previousStatus: string | null;
  change: SubscriptionChange;
  currentPeriodEnd: string;
  cancelAtPeriodEnd: boolean;
}

export interface SubscriptionChargedPayload {
  /** The ledger line's id. */
  id: number;
  subscriptionId: number;
  userId: number;
  kind: 'charge' | 'renewal' | 'proration';
  amount: number;
  currency: string;
  status: 'pending' | 'paid';
  paidWith: string | null;
}

/**
 * Events this module writes to the outbox. Payloads carry ids, not addresses or
 * names: webhooks send them out of the installation, and a user's personal data stays behind
 * the API (read the user for it).
 */
export const USER_EVENTS = defineEvents('users', {
  created: event<UserEventPayload>('user.created', 'A site user signed in for the first time'),
  updated: event<UserUpdatedPayload>('user.updated', 'A site user’s name, address, metadata or status changed'),
  signedIn: event<UserSignedInPayload>('user.signed_in', 'A site user signed in with a one-time code'),
  deleted: event<{ id: number }>('user.deleted', 'A site user was erased, at their request'),
  creditsGranted: event<CreditsEventPayload>('credits.granted', 'Credits were granted to a site user'),
  creditsSpent: event<CreditsEventPayload>('credits.spent', "Credits were spent from a site user's balance"),
  subscriptionCreated: event<SubscriptionEventPayload>(
    'user.subscription.created',
    'A site user’s subscription to a recurring product started (a paid order’s recurring line)',
  ),
  subscriptionUpdated: event<SubscriptionEventPayload>(
    'user.subscription.updated',
    'A subscription was paused, resumed, renewed, changed plan, ended its trial, was set to cancel at period end, or a period charge fell due or was paid',
  ),
  subscriptionCanceled: event<SubscriptionEventPayload>('user.subscription.canceled', 'A subscription was canceled'),
  subscriptionCharged: event<SubscriptionChargedPayload>(
    'user.subscription.charged',
    'A charge against a subscription was recorded (paid, or pending for the processor) or later paid',
  ),
});
