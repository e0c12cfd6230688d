import { orderHolds } from '../common/tenancy/site-settings';
import { expiryOf, HeldOrder, isDueForExpiry, isExpired } from './order-holds';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

describe('order holds', () => {
  it('defaults: 30 minutes for a session, 1440 for a key, 5 pending orders a user', () => {
    expect(orderHolds(undefined)).toEqual({ sessionHoldMinutes: 30, keyHoldMinutes: 1440, maxPendingPerUser: 5 });
    expect(orderHolds({ taxRates: {} })).toEqual({
      sessionHoldMinutes: 30,
      keyHoldMinutes: 1440,
      maxPendingPerUser: 5,
    });
  });

  it('a site’s values win; a key hold of null is kept (no expiry), not replaced by the default', () => {
    expect(orderHolds({ sessionHoldMinutes: 5, keyHoldMinutes: null, maxPendingPerUser: 1 })).toEqual({
      sessionHoldMinutes: 5,
      keyHoldMinutes: null,
      maxPendingPerUser: 1,
    });
  });

  it('expiryOf: now plus the hold of who placed it; null when a key’s hold is null', () => {
    const holds = orderHolds({ sessionHoldMinutes: 45, keyHoldMinutes: 10_080 });
    expect(expiryOf(holds, 'session', NOW)).toEqual(at(45));
    expect(expiryOf(holds, 'key', NOW)).toEqual(at(10_080));
    expect(expiryOf(orderHolds({ keyHoldMinutes: null }), 'key', NOW)).toBeNull();
    expect(expiryOf(orderHolds({ keyHoldMinutes: null }), 'session', NOW)).toEqual(at(30));
  });

  const order = (o: Partial<HeldOrder>): HeldOrder => ({
    paymentStatus: 'pending',
    fulfillmentStatus: 'unfulfilled',
    expiresAt: at(0),
    ...o,
  });

  it.each<[string, Partial<HeldOrder>, boolean, boolean]>([
    ['unpaid, at its expiry', {}, true, true],
    ['unpaid, past it', { expiresAt: at(-1) }, true, true],
    ['unpaid, a millisecond before it', { expiresAt: new Date(NOW.getTime() + 1) }, false, false],
    ['unpaid, partially fulfilled, past it', { fulfillmentStatus: 'partially_fulfilled' }, true, false],
    ['already canceled by its expiry', { fulfillmentStatus: 'canceled' }, true, false],
    ['unpaid and fulfilled', { fulfillmentStatus: 'fulfilled' }, false, false],
    ['without an expiry', { expiresAt: null }, false, false],
    ['paid', { paymentStatus: 'paid' }, false, false],
    ['refunded', { paymentStatus: 'refunded' }, false, false],
  ])('%s: expired %s, due for the expiry %s', (_label, o, expired, due) => {
    expect(isExpired(order(o), NOW)).toBe(expired);
    expect(isDueForExpiry(order(o), NOW)).toBe(due);
  });
});
