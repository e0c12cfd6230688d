import { Problem } from '../common/errors/problems';
import {
  applyFulfillment,
  assertPaymentTransition,
  derivedStatus,
  FulfillableLine,
  FulfillmentChange,
  FulfillmentStatus,
  PAYMENT_STATUSES,
  PaymentStatus,
} from './order-status';

function problemOf(fn: () => unknown): Problem {
  try {
    fn();
  } catch (e) {
    if (e instanceof Problem) return e;
    throw e;
  }
  throw new Error('expected a problem');
}

const lines = (...pairs: Array<[number, number]>): FulfillableLine[] =>
  pairs.map(([quantity, fulfilledQuantity], i) => ({ id: i + 1, quantity, fulfilledQuantity }));

describe('payment transitions', () => {
  it('allows exactly pending -> paid -> refunded', () => {
    const allowed: string[] = [];
    for (const from of PAYMENT_STATUSES)
      for (const to of PAYMENT_STATUSES) {
        try {
          assertPaymentTransition(from, to);
          allowed.push(`${from}->${to}`);
        } catch (e) {
          expect((e as Problem).code).toBe('transition_forbidden');
          expect((e as Problem).getStatus()).toBe(409);
        }
      }
    expect(allowed).toEqual(['pending->paid', 'paid->refunded']);
  });

  it.each([
    ['paid', 'pending'],
    ['pending', 'refunded'],
    ['refunded', 'paid'],
    ['paid', 'paid'],
  ] as Array<[PaymentStatus, PaymentStatus]>)('%s -> %s is a 409', (from, to) => {
    expect(problemOf(() => assertPaymentTransition(from, to)).code).toBe('transition_forbidden');
  });
});

describe('fulfillment', () => {
  const ship = (...l: Array<[number, number]>): FulfillmentChange => ({
    kind: 'shipment',
    lines: l.map(([lineId, quantity]) => ({ lineId, quantity })),
  });

  it('derives the status from quantities', () => {
    expect(derivedStatus(lines([2, 0], [1, 0]))).toBe('unfulfilled');
    expect(derivedStatus(lines([2, 1], [1, 0]))).toBe('partially_fulfilled');
    expect(derivedStatus(lines([2, 2], [1, 1]))).toBe('fulfilled');
  });

  it('unfulfilled -> partially_fulfilled -> fulfilled by shipments', () => {
    const first = applyFulfillment('unfulfilled', lines([2, 0], [1, 0]), ship([1, 1]));
    expect(first).toEqual({
      status: 'partially_fulfilled',
      fulfilled: new Map([
        [1, 1],
        [2, 0],
      ]),
      added: [{ lineId: 1, quantity: 1 }],
      released: [],
    });
    const second = applyFulfillment('partially_fulfilled', lines([2, 1], [1, 0]), ship([1, 1], [2, 1]));
    expect(second.status).toBe('fulfilled');
    expect([...second.fulfilled]).toEqual([
      [1, 2],
      [2, 1],
    ]);
  });

  it('unfulfilled -> fulfilled in one shipment; a shipment without lines ships what is left', () => {
    expect(applyFulfillment('unfulfilled', lines([2, 0]), ship([1, 2])).status).toBe('fulfilled');
    const rest = applyFulfillment('partially_fulfilled', lines([3, 1], [1, 1], [2, 0]), { kind: 'shipment' });
    expect(rest.status).toBe('fulfilled');
    expect(rest.added).toEqual([
      { lineId: 1, quantity: 2 },
      { lineId: 3, quantity: 2 },
    ]);
  });

  it('status fulfilled fulfils the rest without a shipment', () => {
    const done = applyFulfillment('partially_fulfilled', lines([3, 1]), { kind: 'status', status: 'fulfilled' });
    expect([done.status, done.added]).toEqual(['fulfilled', [{ lineId: 1, quantity: 2 }]]);
  });

  it('cancel from unfulfilled or partially_fulfilled releases what was not fulfilled', () => {
    const cancel: FulfillmentChange = { kind: 'status', status: 'canceled' };
    expect(applyFulfillment('unfulfilled', lines([2, 0]), cancel)).toEqual({
      status: 'canceled',
      fulfilled: new Map([[1, 0]]),
      added: [],
      released: [{ lineId: 1, quantity: 2 }],
    });
    expect(applyFulfillment('partially_fulfilled', lines([3, 1], [1, 1]), cancel).released).toEqual([
      { lineId: 1, quantity: 2 },
    ]);
  });

  it.each([
    ['fulfilled', { kind: 'status', status: 'canceled' }],
    ['canceled', { kind: 'status', status: 'canceled' }],
    ['canceled', { kind: 'shipment', lines: [{ lineId: 1, quantity: 1 }] }],
    ['canceled', { kind: 'status', status: 'fulfilled' }],
    ['fulfilled', { kind: 'shipment' }],
    ['fulfilled', { kind: 'status', status: 'fulfilled' }],
  ] as Array<[FulfillmentStatus, FulfillmentChange]>)('%s: %j is a 409 transition_forbidden', (status, change) => {
    const p = problemOf(() => applyFulfillment(status, lines([1, status === 'fulfilled' ? 1 : 0]), change));
    expect([p.getStatus(), p.code]).toEqual([409, 'transition_forbidden']);
  });

  it('shipping more than ordered is a 409; unknown or repeated lines a 400 naming them', () => {
    const p = problemOf(() => applyFulfillment('partially_fulfilled', lines([2, 1]), ship([1, 2])));
    expect([p.getStatus(), p.code]).toEqual([409, 'quantity_exceeds_order']);
    const unknown = problemOf(() => applyFulfillment('unfulfilled', lines([2, 0]), ship([1, 1], [9, 1])));
    expect(unknown.errors).toEqual([{ path: 'shipment.lines.1.lineId', message: 'is not a line of this order' }]);
    const twice = problemOf(() => applyFulfillment('unfulfilled', lines([2, 0]), ship([1, 1], [1, 1]), 'x'));
    expect(twice.errors).toEqual([{ path: 'x.lines.1.lineId', message: 'is listed twice' }]);
  });
});
