import { ConflictProblem } from '../common/errors/problems';
import {
  addInterval,
  assertSubscriptionMove,
  proration,
  SUBSCRIPTION_ACTIONS,
  SUBSCRIPTION_MOVES,
  SUBSCRIPTION_STATUSES,
} from './subscription-status';

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
});
