import { orderHolds } from '../common/tenancy/site-settings';
import {
  cooldownStart,
  expiryOf,
  HeldItem,
  HeldOrder,
  holdRefusal,
  isDueForExpiry,
  isExpired,
  wantedItems,
} from './order-holds';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

describe('order holds', () => {
  it('defaults: 30 minutes for a session, 1440 for a key, 5 pending orders and 10 units of an item, 50 in all a user, a 10-minute cool-down', () => {
    const defaults = {
      sessionHoldMinutes: 30,
      keyHoldMinutes: 1440,
      maxPendingPerUser: 5,
      maxHeldPerProduct: 10,
      maxHeldPerUser: 50,
      holdCooldownMinutes: 10,
    };
    expect(orderHolds(undefined)).toEqual(defaults);
    expect(orderHolds({ taxRates: {} })).toEqual(defaults);
  });

  it('a site’s values win; a key hold of null is kept (no expiry), not replaced by the default', () => {
    const set = {
      sessionHoldMinutes: 5,
      keyHoldMinutes: null,
      maxPendingPerUser: 1,
      maxHeldPerProduct: 3,
      maxHeldPerUser: 7,
      holdCooldownMinutes: 0,
    };
    expect(orderHolds(set)).toEqual(set);
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

  describe('hold limits and the cool-down', () => {
    const limits = orderHolds({ maxHeldPerProduct: 10, maxHeldPerUser: 50, holdCooldownMinutes: 10 });
    const print = { productId: 1, variantId: null };
    const teeM = { productId: 2, variantId: 21 };
    const teeL = { productId: 2, variantId: 22 };
    const holding = (item: typeof print | typeof teeM, held: number, expiredAt: Date | null = null): HeldItem => ({
      ...item,
      held,
      expiredAt,
    });

    it('wantedItems: the lines of one item together, in the order they first appear; variants apart', () => {
      expect(
        wantedItems([
          { ...teeM, name: 'Tee (M)', quantity: 2 },
          { ...print, name: 'Print', quantity: 6 },
          { ...teeL, name: 'Tee (L)', quantity: 1 },
          { ...print, name: 'Print', quantity: 5 },
        ]),
      ).toEqual([
        { ...teeM, name: 'Tee (M)', quantity: 2 },
        { ...print, name: 'Print', quantity: 11 },
        { ...teeL, name: 'Tee (L)', quantity: 1 },
      ]);
    });

    it('an item up to its limit with what is held passes; one unit more is refused, naming both', () => {
      expect(holdRefusal(limits, [holding(print, 4)], [{ ...print, name: 'Print', quantity: 6 }], NOW)).toBeNull();
      expect(holdRefusal(limits, [holding(print, 4)], [{ ...print, name: 'Print', quantity: 7 }], NOW)).toEqual({
        code: 'hold_limit_exceeded',
        detail: 'You may hold at most 10 of Print in unpaid orders; you hold 4 and ask for 7',
      });
      // What is held of another variant is not this one's.
      expect(holdRefusal(limits, [holding(teeL, 10)], [{ ...teeM, name: 'Tee (M)', quantity: 10 }], NOW)).toBeNull();
    });

    it('the total counts every item held and asked', () => {
      const held = [
        holding(print, 10),
        holding(teeM, 10),
        holding(teeL, 10),
        holding({ productId: 3, variantId: null }, 15),
      ];
      const asked = (quantity: number) => [{ productId: 4, variantId: null, name: 'Card', quantity }];
      expect(holdRefusal(limits, held, asked(5), NOW)).toBeNull();
      expect(holdRefusal(limits, held, asked(6), NOW)).toEqual({
        code: 'hold_limit_exceeded',
        detail: 'You may hold at most 50 units in all your unpaid orders; you hold 45 and ask for 6',
      });
    });

    it('a hold of the item expired within the cool-down is refused until it ends, with the seconds left', () => {
      const wanted = [{ ...print, name: 'Print', quantity: 1 }];
      expect(holdRefusal(limits, [holding(print, 0, at(-9))], wanted, NOW)).toEqual({
        code: 'hold_cooldown',
        detail:
          'Your unpaid order of Print expired at 2026-03-01T11:51:00.000Z; you may order it again from ' +
          '2026-03-01T12:01:00.000Z (10 minutes later)',
        retryAfterSeconds: 60,
      });
      expect(holdRefusal(limits, [holding(print, 0, at(-10))], wanted, NOW)).toBeNull();
      expect(holdRefusal(limits, [holding(teeM, 0, at(-1))], wanted, NOW)).toBeNull();
      expect(holdRefusal({ ...limits, holdCooldownMinutes: 0 }, [holding(print, 0, at(0))], wanted, NOW)).toBeNull();
      expect(cooldownStart(limits, NOW)).toEqual(at(-10));
    });
  });
});
