import { ConflictProblem } from '../../common/errors/problems';
import {
  addInterval,
  applyBalance,
  assertSubscriptionMove,
  nextChargeAttempt,
  periodEndAction,
  planChangeLines,
  proration,
  SUBSCRIPTION_ACTIONS,
  SUBSCRIPTION_MOVES,
  SUBSCRIPTION_STATUSES,
  unpaidCancelAt,
} from './subscription-status';
import { dunningDays } from '../../common/tenancy/site-settings';

describe('subscription status rules', () => {
  it.each(SUBSCRIPTION_ACTIONS.flatMap((a) => SUBSCRIPTION_STATUSES.map((s) => [a, s] as const)))(
    '%s from %s is allowed exactly when listed',
    (action, status) => {
      const allowed = SUBSCRIPTION_MOVES[action].includes(status);
      const run = () => assertSubscriptionMove(status, action);
      if (allowed) expect(run).not.toThrow();
      else expect(run).toThrow(ConflictProblem);
    },
  );

  it('nothing moves a canceled subscription', () => {
    for (const a of SUBSCRIPTION_ACTIONS) expect(() => assertSubscriptionMove('canceled', a)).toThrow(/canceled/);
  });

  it('a cancel at period end is asked once', () => {
    expect(() => assertSubscriptionMove('active', 'cancel_at_period_end', true)).toThrow(/already/);
  });

  it('adds calendar intervals in UTC, clamping to the end of a short month', () => {
    expect(addInterval(new Date('2026-01-31T10:00:00Z'), 'month', 1).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(addInterval(new Date('2024-02-29T00:00:00Z'), 'year', 1).toISOString()).toBe('2025-02-28T00:00:00.000Z');
    expect(addInterval(new Date('2026-12-15T00:00:00Z'), 'month', 3).toISOString()).toBe('2027-03-15T00:00:00.000Z');
    expect(addInterval(new Date('2026-03-01T00:00:00Z'), 'week', 2).toISOString()).toBe('2026-03-15T00:00:00.000Z');
    expect(addInterval(new Date('2026-03-01T00:00:00Z'), 'day', 10).toISOString()).toBe('2026-03-11T00:00:00.000Z');
  });

  it('prorates the time left of the period', () => {
    const period = { start: new Date('2026-01-01T00:00:00Z'), end: new Date('2026-01-31T00:00:00Z') };
    expect(proration(period, new Date('2026-01-16T00:00:00Z'), 1000, 3000)).toEqual({
      credit: -500,
      charge: 1500,
      fraction: 0.5,
    });
    expect(proration(period, new Date('2026-02-10T00:00:00Z'), 1000, 3000)).toEqual({
      credit: 0,
      charge: 0,
      fraction: 0,
    });
    expect(proration(period, new Date('2025-12-01T00:00:00Z'), 1000, 3000).fraction).toBe(1);
  });

  it('takes a charge from the balance first, never more than either', () => {
    expect(applyBalance(0, 1000)).toEqual({ applied: 0, due: 1000 });
    expect(applyBalance(300, 1000)).toEqual({ applied: 300, due: 700 });
    expect(applyBalance(5000, 1000)).toEqual({ applied: 1000, due: 0 });
    expect(applyBalance(5000, 0)).toEqual({ applied: 0, due: 0 });
  });

  describe('the lines of a plan change', () => {
    const period = { start: new Date('2026-01-01T00:00:00Z'), end: new Date('2026-01-31T00:00:00Z') };
    const at = new Date('2026-01-16T00:00:00Z');
    const base = { status: 'active' as const, period, at, oldAmount: 1000, newAmount: 3000 };

    it('same interval, prorated: the unused old plan credited, the new one for the time left', () => {
      expect(planChangeLines({ ...base, newInterval: false, prorate: true })).toEqual({
        credit: -500,
        charge: { kind: 'proration', amount: 1500 },
        newPeriod: false,
        fraction: 0.5,
      });
    });

    it('same interval, not prorated (an operator’s choice): nothing now', () => {
      expect(planChangeLines({ ...base, newInterval: false, prorate: false })).toEqual({
        credit: 0,
        charge: null,
        newPeriod: false,
        fraction: 0.5,
      });
    });

    it('a new interval is a new period charged in full, prorated or not; prorated, the old plan is credited', () => {
      expect(planChangeLines({ ...base, newInterval: true, prorate: true })).toEqual({
        credit: -500,
        charge: { kind: 'renewal', amount: 3000 },
        newPeriod: true,
        fraction: 0.5,
      });
      expect(planChangeLines({ ...base, newInterval: true, prorate: false })).toEqual({
        credit: 0,
        charge: { kind: 'renewal', amount: 3000 },
        newPeriod: true,
        fraction: 0.5,
      });
    });

    it('in a trial the plan swaps with nothing owed, whatever the interval', () => {
      for (const newInterval of [false, true])
        expect(planChangeLines({ ...base, status: 'trialing', newInterval, prorate: true })).toEqual({
          credit: 0,
          charge: null,
          newPeriod: false,
          fraction: 0.5,
        });
    });

    it('no zero-amount proration charge', () => {
      expect(planChangeLines({ ...base, newAmount: 0, newInterval: false, prorate: true }).charge).toBeNull();
    });
  });

  it('at a period’s end: an unpaid period charge cancels, then a scheduled cancel, else a renewal', () => {
    expect(periodEndAction('past_due', false, true)).toBe('cancel_unpaid');
    expect(periodEndAction('past_due', true, true)).toBe('cancel_unpaid');
    expect(periodEndAction('past_due', false, false)).toBe('renew');
    expect(periodEndAction('active', true, false)).toBe('cancel');
    expect(periodEndAction('active', false, false)).toBe('renew');
    expect(periodEndAction('trialing', false, false)).toBe('renew');
    expect(periodEndAction('paused', false, false)).toBe('none');
    expect(periodEndAction('canceled', true, true)).toBe('none');
  });

  it('an unpaid charge is waited for the dunning window (14 days unless the site says), or to its period’s end if sooner', () => {
    const due = new Date('2022-01-20T12:00:00.000Z');
    expect(dunningDays(undefined)).toBe(14);
    expect(dunningDays({})).toBe(14);
    expect(dunningDays({ dunningDays: 3 })).toBe(3);
    // A year's period: the window, not the year.
    expect(unpaidCancelAt(due, 14, new Date('2023-01-20T12:00:00.000Z'))).toEqual(new Date('2022-02-03T12:00:00.000Z'));
    // A 5-day period ends first.
    const short = new Date('2022-01-25T12:00:00.000Z');
    expect(unpaidCancelAt(due, 14, short)).toEqual(short);
    expect(unpaidCancelAt(due, 60, new Date('2023-01-20T12:00:00.000Z'))).toEqual(new Date('2022-03-21T12:00:00.000Z'));
  });

  it('a failed processor charge is retried 1, 3, 5 and 7 days after its first failure, never at or past the window', () => {
    const day = 86_400_000;
    const t0 = new Date('2026-01-01T00:00:00.000Z');
    let at = t0;
    const tries: number[] = [];
    for (let attempt = 1; ; attempt++) {
      const next = nextChargeAttempt(at, attempt, null);
      if (!next) break;
      tries.push((next.getTime() - t0.getTime()) / day);
      at = next;
    }
    expect(tries).toEqual([1, 3, 5, 7]);
    const window = new Date(t0.getTime() + 3 * day);
    expect(nextChargeAttempt(new Date(t0.getTime() + day), 2, window)).toBeNull();
    expect(nextChargeAttempt(t0, 1, window)).toEqual(new Date(t0.getTime() + day));
  });
});
