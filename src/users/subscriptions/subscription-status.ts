import { ConflictProblem } from '../../common/errors/problems';
import type { PricedLine } from '../../catalog/catalog.service';

/**
 * A user subscription's state machine (docs/users.md), as pure rules: a move that is not listed
 * is a 409 `transition_forbidden`, and the caller changes nothing.
 *
 * - pause: `trialing | active → paused`; resume: `paused → active` (or `past_due`, below)
 * - cancel (now): `trialing | active | paused | past_due → canceled`; at period end: `trialing | active`
 * - change plan: `trialing | active` (not `past_due`: settle first)
 * - a period charge left unpaid: `→ past_due`; its payment: `past_due → active`; still unpaid at
 *   the end of the site's dunning window, or of its period if sooner: `past_due → canceled`
 *   (`unpaid`)
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

/** What collecting `amount` takes from a `balance` owed to the customer, and what is left to ask the processor for. */
export function applyBalance(balance: number, amount: number): { applied: number; due: number } {
  const applied = Math.min(Math.max(balance, 0), Math.max(amount, 0));
  return { applied, due: amount - applied };
}

export interface PlanChangeLines {
  /** The unused part of the old plan, credited to the balance (negative); 0: none. */
  credit: number;
  /** What the new plan costs now, collected at once: the rest of this period, or a new period. */
  charge: { kind: 'proration' | 'renewal'; amount: number } | null;
  /** A new period starts at the change (a new billing interval). */
  newPeriod: boolean;
  fraction: number;
}

/**
 * The ledger lines of a plan change (docs/users.md), Stripe's way: during a trial the plan swaps
 * and nothing is owed; a new billing interval starts a new period now, charged in full (an
 * interval change is never free), after crediting the unused old plan when prorated; the same
 * interval prorates the time left (credit and charge), or, unprorated, owes nothing until the
 * next renewal, which is at the new price.
 */
export function planChangeLines(change: {
  status: SubscriptionStatus;
  period: { start: Date; end: Date };
  at: Date;
  oldAmount: number;
  newAmount: number;
  newInterval: boolean;
  prorate: boolean;
}): PlanChangeLines {
  const { credit, charge, fraction } = proration(change.period, change.at, change.oldAmount, change.newAmount);
  if (change.status === 'trialing') return { credit: 0, charge: null, newPeriod: false, fraction };
  const unused = change.prorate ? credit : 0;
  if (change.newInterval)
    return { credit: unused, charge: { kind: 'renewal', amount: change.newAmount }, newPeriod: true, fraction };
  return {
    credit: unused,
    charge: change.prorate && charge !== 0 ? { kind: 'proration', amount: charge } : null,
    newPeriod: false,
    fraction,
  };
}

/**
 * What the period job does with a subscription whose period ended: a period charge still unpaid
 * ends it (`canceled`, `unpaid`: no period without its charge), a cancel at period end ends it,
 * anything else renews (the next period and its charge).
 */
export function periodEndAction(
  status: SubscriptionStatus,
  cancelAtPeriodEnd: boolean,
  unpaidPeriodCharge: boolean,
): 'cancel_unpaid' | 'cancel' | 'renew' | 'none' {
  if (status !== 'trialing' && status !== 'active' && status !== 'past_due') return 'none';
  if (status === 'past_due' && unpaidPeriodCharge) return 'cancel_unpaid';
  return cancelAtPeriodEnd ? 'cancel' : 'renew';
}

/**
 * When a subscription that has just become `past_due` is canceled unless paid (docs/users.md,
 * "Dunning"): `days` after the charge fell due, whatever the period's length, or at the end of
 * its period if that comes first (no new period starts while a charge is unpaid).
 */
export function unpaidCancelAt(dueAt: Date, days: number, periodEnd: Date): Date {
  return new Date(Math.min(dueAt.getTime() + days * 86_400_000, periodEnd.getTime()));
}

/**
 * Our retries of a processor's failed charge (docs/payments.md, "Failures and retries"): days
 * after each failed attempt until the next one, so the 2nd to 5th attempts come 1, 3, 5 and 7
 * days after the first failure; none after the 5th.
 */
export const CHARGE_RETRY_GAPS_DAYS = [1, 2, 2, 2] as const;

/**
 * When a line whose `attempt` failed at `failedAt` is tried again; null when the schedule is
 * spent or the next try would come at or after `notAfter` (a `past_due` subscription's
 * `unpaidCancelAt`: the dunning sweep ends it then, and no charge runs past its window).
 */
export function nextChargeAttempt(failedAt: Date, attempt: number, notAfter: Date | null): Date | null {
  const gap = CHARGE_RETRY_GAPS_DAYS[attempt - 1];
  if (gap === undefined) return null;
  const next = new Date(failedAt.getTime() + gap * 86_400_000);
  return notAfter && next.getTime() >= notAfter.getTime() ? null : next;
}
