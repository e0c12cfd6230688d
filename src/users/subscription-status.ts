import { ConflictProblem } from '../common/errors/problems';
import type { PricedLine } from '../catalog/catalog.service';

/**
 * A user subscription's state machine (docs/users.md), as pure rules: a move that is not listed
 * is a 409 `transition_forbidden`, and the caller changes nothing.
 *
 * - pause: `trialing | active → paused`; resume: `paused → active`
 * - cancel (now): `trialing | active | paused | past_due → canceled`; at period end: `trialing | active`
 * - change plan: `trialing | active` (the status stays)
 * - the processor's report: `active → past_due` (a renewal it could not collect), `past_due → active`
 */
/** A plan's billing interval, as the catalog prices recurring products. */
export type RecurringInterval = NonNullable<PricedLine['recurring']>['interval'];
export const RECURRING_INTERVALS = ['day', 'week', 'month', 'year'] as const satisfies readonly RecurringInterval[];

export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'paused', 'past_due', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const SUBSCRIPTION_ACTIONS = [
  'pause',
  'resume',
  'cancel',
  'cancel_at_period_end',
  'change_plan',
  'charge',
] as const;
export type SubscriptionAction = (typeof SUBSCRIPTION_ACTIONS)[number];

export const SUBSCRIPTION_MOVES: Readonly<Record<SubscriptionAction, readonly SubscriptionStatus[]>> = {
  pause: ['trialing', 'active'],
  resume: ['paused'],
  cancel: ['trialing', 'active', 'paused', 'past_due'],
  cancel_at_period_end: ['trialing', 'active'],
  change_plan: ['trialing', 'active'],
  charge: ['trialing', 'active', 'paused', 'past_due'],
};

const WORDS: Record<SubscriptionAction, string> = {
  pause: 'be paused',
  resume: 'be resumed',
  cancel: 'be canceled',
  cancel_at_period_end: 'be canceled at the end of its period',
  change_plan: 'change plan',
  charge: 'be charged',
};

export function assertSubscriptionMove(
  status: SubscriptionStatus,
  action: SubscriptionAction,
  cancelAtPeriodEnd = false,
): void {
  if (!SUBSCRIPTION_MOVES[action].includes(status))
    throw new ConflictProblem(
      'transition_forbidden',
      `A ${status.replace('_', ' ')} subscription cannot ${WORDS[action]}`,
    );
  if (action === 'cancel_at_period_end' && cancelAtPeriodEnd)
    throw new ConflictProblem('transition_forbidden', 'The subscription is already canceled at the end of its period');
}

/** `start` plus `count` intervals, in UTC calendar terms (a month from Jan 31 is the last day of Feb). */
export function addInterval(start: Date, interval: RecurringInterval, count: number): Date {
  const d = new Date(start.getTime());
  switch (interval) {
    case 'day':
      d.setUTCDate(d.getUTCDate() + count);
      return d;
    case 'week':
      d.setUTCDate(d.getUTCDate() + 7 * count);
      return d;
    case 'month':
    case 'year': {
      const months = interval === 'month' ? count : 12 * count;
      const day = d.getUTCDate();
      d.setUTCDate(1);
      d.setUTCMonth(d.getUTCMonth() + months);
      const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
      d.setUTCDate(Math.min(day, last));
      return d;
    }
  }
}

/**
 * What a plan change owes, per period unit left (docs/users.md): the unused part of the old plan
 * back (negative) and the new plan for the same time (positive), each rounded to a minor unit.
 */
export function proration(
  period: { start: Date; end: Date },
  at: Date,
  oldAmount: number,
  newAmount: number,
): { credit: number; charge: number; fraction: number } {
  const total = period.end.getTime() - period.start.getTime();
  const left = Math.min(Math.max(period.end.getTime() - at.getTime(), 0), total);
  const fraction = total > 0 ? left / total : 0;
  return { credit: 0 - Math.round(oldAmount * fraction), charge: Math.round(newAmount * fraction), fraction };
}
