import request from 'supertest';
import { OrderExpiryJob } from '../../src/orders/order-expiry.job';
import { ORDER_PI_CANCEL_JOB, ORDER_PI_REFUND_JOB } from '../../src/payments/orders/order-payment-jobs';
import { eventsOf, lastEventId } from '../support/events';
import { expectProblem } from '../support/problem';
import { makeOrder, makeProduct, ordersUrl } from '../support/commerce';
import {
  deliver,
  intentUrl,
  jobs,
  jobsOf,
  moveClock,
  orderRow,
  refundUrl,
  relay,
  sessionOrder,
  signedIn,
  withOrderPayments,
} from './order-payments-fixtures';

const HOUR = 3_600_000;

/**
 * docs/payments.md, "Orders": refunds through Stripe (the route), a manual order's refund, PATCH
 * …/payment refusing a Stripe order, and the expiry: an unpaid order's PaymentIntent canceled,
 * and a payment that comes after the stock was released given back, never sold.
 */
describe('payments: refunds and expiry of orders paid through Stripe', () => {
  const ctx = withOrderPayments();
  const stockOf = async (id: number) =>
    (await ctx.t.db.query(`SELECT quantity_available FROM products WHERE id = $1`, [id]))[0].quantity_available;
  const refundsOf = (pi: string) => ctx.standIn.objects('refund').filter((r) => r.payment_intent === pi);

  /** A key's order of `mug`, paid through Stripe (its PaymentIntent and the signed success). */
  async function paidOrder(unitAmount = 2000): Promise<{ id: number; pi: string }> {
    const mug = await makeProduct(ctx.a, { unitAmount });
    const order = await makeOrder(ctx.a, [[mug.id, 1]]);
    const { body } = await ctx.a.api.post(intentUrl(ctx.a, order.id)).expect(200);
    await deliver(ctx, ctx.standIn.eventFor('payment_intent.succeeded', body.paymentIntentId));
    expect((await orderRow(ctx.t, order.id)).paymentStatus).toBe('paid');
    return { id: order.id, pi: body.paymentIntentId };
  }

  /** A site user's unpaid order of the last unit of a print, with its PaymentIntent, past its hold (the clock moved an hour). */
  async function expiredIntent(): Promise<{
    print: { id: number };
    order: { id: number };
    pi: string;
    auth: Record<string, string>;
  }> {
    const print = await makeProduct(ctx.a, { quantityAvailable: 1 });
    const { auth } = await signedIn(ctx.t, ctx.a);
    const order = await sessionOrder(ctx.t, ctx.a, auth, [[print.id, 1]]);
    const { body } = await request(ctx.t.server).post(intentUrl(ctx.a, order.id)).set(auth).expect(200);
    moveClock(ctx.t, HOUR);
    return { print, order, pi: body.paymentIntentId as string, auth };
  }

  it('the refund route asks Stripe, then records refunded once; Stripe down: 503 and nothing changed; the later event adds nothing', async () => {
    const { a } = ctx;
    const order = await paidOrder();
    const from = await lastEventId(ctx.t);
    ctx.standIn.failNext({ status: 500, times: 2, match: (r) => r.path === '/v1/refunds' });
    expectProblem(await a.api.post(refundUrl(a, order.id)), 503, 'processor_unavailable');
    expect((await orderRow(ctx.t, order.id)).paymentStatus).toBe('paid');
    expect(refundsOf(order.pi)).toEqual([]);
    expect(await eventsOf(ctx.t, a, from)).toEqual([]);

    const res = await a.api.post(refundUrl(a, order.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      expect.objectContaining({
        id: order.id,
        paymentStatus: 'refunded',
        paymentProcessor: 'stripe',
        paymentMode: 'test',
      }),
    );
    expect(refundsOf(order.pi)).toEqual([
      expect.objectContaining({ amount: 2000, reason: 'requested_by_customer', status: 'succeeded' }),
    ]);
    const sent = ctx.standIn.requests.filter((r) => r.path === '/v1/refunds' && r.status === 200);
    expect(sent.map((r) => r.idempotencyKey)).toEqual([`sitebase-refund-${a.siteId}-${order.id}`]);
    expect((await eventsOf(ctx.t, a, from)).map((e) => e.name)).toEqual(['order.refunded']);

    // Stripe's charge.refunded of that refund: the order is refunded already.
    const event = ctx.standIn.eventFor('charge.refunded', order.pi);
    expect(await deliver(ctx, event)).toEqual(expect.objectContaining({ outcome: 'ignored' }));
    expect(await eventsOf(ctx.t, a, from)).toHaveLength(1);
    expect(refundsOf(order.pi)).toHaveLength(1);
    expectProblem(await a.api.post(refundUrl(a, order.id)), 409, 'transition_forbidden');
  });

  it('a refund from Stripe’s dashboard (charge.refunded) refunds a paid order; the route then refuses', async () => {
    const { a } = ctx;
    const order = await paidOrder();
    const from = await lastEventId(ctx.t);
    expect(await deliver(ctx, ctx.standIn.eventFor('charge.refunded', order.pi))).toEqual(
      expect.objectContaining({ outcome: 'applied' }),
    );
    expect((await orderRow(ctx.t, order.id)).paymentStatus).toBe('refunded');
    expect((await eventsOf(ctx.t, a, from)).map((e) => e.name)).toEqual(['order.refunded']);
    expectProblem(await a.api.post(refundUrl(a, order.id)), 409, 'transition_forbidden');
  });

  it('an unpaid Stripe order cannot be refunded; PATCH …/payment refuses a Stripe order (409 processor_managed)', async () => {
    const { a } = ctx;
    const mug = await makeProduct(a);
    const order = await makeOrder(a, [[mug.id, 1]]);
    await a.api.post(intentUrl(a, order.id)).expect(200);
    const before = ctx.standIn.requests.length;
    expectProblem(await a.api.post(refundUrl(a, order.id)), 409, 'transition_forbidden');
    expectProblem(
      await a.api.patch(ordersUrl(a, `/${order.id}/payment`)).send({ paymentStatus: 'paid' }),
      409,
      'processor_managed',
    );
    const paid = await paidOrder();
    expectProblem(
      await a.api.patch(ordersUrl(a, `/${paid.id}/payment`)).send({ paymentStatus: 'refunded' }),
      409,
      'processor_managed',
    );
    expect((await orderRow(ctx.t, paid.id)).paymentStatus).toBe('paid');
    expect((await orderRow(ctx.t, order.id)).paymentStatus).toBe('pending');
    expect(ctx.standIn.requests.slice(before).filter((r) => r.path === '/v1/refunds')).toEqual([]);
  });

  it('a manual order’s refund is recorded as PATCH does: nothing asked of Stripe; unpaid, a 409', async () => {
    const { b } = ctx;
    const plain = await makeProduct(b);
    const order = await makeOrder(b, [[plain.id, 1]]);
    const before = ctx.standIn.requests.length;
    expectProblem(await b.api.post(refundUrl(b, order.id)), 409, 'transition_forbidden');
    await b.api
      .patch(ordersUrl(b, `/${order.id}/payment`))
      .send({ paymentStatus: 'paid' })
      .expect(200);
    const from = await lastEventId(ctx.t);
    const res = await b.api.post(refundUrl(b, order.id));
    expect([res.status, res.body.paymentStatus, res.body.paymentProcessor]).toEqual([200, 'refunded', 'manual']);
    expect((await eventsOf(ctx.t, b, from)).map((e) => e.name)).toEqual(['order.refunded']);
    expect(ctx.standIn.requests.length).toBe(before);
  });

  it('the refund route: a site user’s session may not; another tenant’s key finds nothing', async () => {
    const { a, b } = ctx;
    const { auth } = await signedIn(ctx.t, a);
    const order = await paidOrder();
    expect((await request(ctx.t.server).post(refundUrl(a, order.id)).set(auth)).status).toBe(403);
    expectProblem(await b.api.post(refundUrl(a, order.id)), 404, 'site_not_found');
    expect((await orderRow(ctx.t, order.id)).paymentStatus).toBe('paid');
  });

  it('an unpaid Stripe order that expires: its PaymentIntent is canceled; paying it later is a 409 order_expired', async () => {
    const { a } = ctx;
    const { print, order, pi: paymentIntentId, auth } = await expiredIntent();
    const body = { paymentIntentId };
    expect(await ctx.t.app.get(OrderExpiryJob).run({ siteId: a.siteId, orderId: order.id })).toBe(true);
    await relay(ctx.t).poll();
    const queued = await jobsOf(ctx.t, ORDER_PI_CANCEL_JOB, order.id);
    expect(queued).toEqual([
      { siteId: a.siteId, orderId: order.id, mode: 'test', paymentIntentId: body.paymentIntentId },
    ]);
    await jobs(ctx.t).cancel(queued[0]);
    expect(ctx.standIn.objects('payment_intent').find((p) => p.id === body.paymentIntentId)?.status).toBe('canceled');
    // Again (a retried job): Stripe says it is canceled already; nothing fails.
    await jobs(ctx.t).cancel(queued[0]);
    expectProblem(await request(ctx.t.server).post(intentUrl(a, order.id)).set(auth), 409, 'order_expired');
    expect(await stockOf(print.id)).toBe(1);
  });

  it('a payment that succeeds after the expiry released the stock is refunded, never sold: canceled + refunded', async () => {
    const { a } = ctx;
    const { print, order, pi } = await expiredIntent();
    await ctx.t.app.get(OrderExpiryJob).run({ siteId: a.siteId, orderId: order.id });
    expect(await stockOf(print.id)).toBe(1);
    // Someone else buys the released print.
    const other = await makeOrder(a, [[print.id, 1]]);
    expect(await stockOf(print.id)).toBe(0);

    const from = await lastEventId(ctx.t);
    // The buyer had confirmed just before the cancel reached Stripe: it succeeded.
    expect(await deliver(ctx, ctx.standIn.eventFor('payment_intent.succeeded', pi))).toEqual(
      expect.objectContaining({ outcome: 'applied' }),
    );
    expect((await orderRow(ctx.t, order.id)).paymentStatus).toBe('pending');
    const [refundJob] = await jobsOf(ctx.t, ORDER_PI_REFUND_JOB, order.id);
    expect(refundJob).toEqual({ siteId: a.siteId, orderId: order.id, mode: 'test', paymentIntentId: pi });
    await jobs(ctx.t).refund(refundJob);
    expect(refundsOf(pi)).toEqual([expect.objectContaining({ amount: 1000, status: 'succeeded' })]);
    const row = await orderRow(ctx.t, order.id);
    expect([row.fulfillmentStatus, row.paymentStatus, row.paidAt, row.processorPaymentId]).toEqual([
      'canceled',
      'refunded',
      null,
      pi,
    ]);
    expect((await eventsOf(ctx.t, a, from)).map((e) => e.name)).toEqual(['order.refunded']);
    // The job again (retried), the cancel of the expiry (Stripe: it succeeded), Stripe's charge.refunded: nothing more.
    await jobs(ctx.t).refund(refundJob);
    await relay(ctx.t).poll();
    for (const job of await jobsOf(ctx.t, ORDER_PI_CANCEL_JOB, order.id)) await jobs(ctx.t).cancel(job);
    expect(await deliver(ctx, ctx.standIn.eventFor('charge.refunded', pi))).toEqual(
      expect.objectContaining({ outcome: 'ignored' }),
    );
    expect(refundsOf(pi)).toHaveLength(1);
    expect((await eventsOf(ctx.t, a, from)).map((e) => e.name)).toEqual(['order.refunded']);
    // The print was sold once: to the other order.
    expect(await stockOf(print.id)).toBe(0);
    expect((await orderRow(ctx.t, other.id)).fulfillmentStatus).toBe('unfulfilled');
  });

  it('a success for an order past its hold that the expiry has not canceled yet: refunded, and the order canceled then', async () => {
    const { print, order, pi: paymentIntentId } = await expiredIntent();
    const body = { paymentIntentId };
    await deliver(ctx, ctx.standIn.eventFor('payment_intent.succeeded', body.paymentIntentId));
    const [refundJob] = await jobsOf(ctx.t, ORDER_PI_REFUND_JOB, order.id);
    await jobs(ctx.t).refund(refundJob);
    const row = await orderRow(ctx.t, order.id);
    expect([row.fulfillmentStatus, row.paymentStatus]).toEqual(['canceled', 'refunded']);
    expect(await stockOf(print.id)).toBe(1);
  });

  it('every request the adapter sent passed Stripe’s spec', () => {
    expect(ctx.standIn.validatedCount).toBeGreaterThan(0);
    expect(ctx.standIn.invalid()).toEqual([]);
  });
});
