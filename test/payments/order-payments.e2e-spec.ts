import request from 'supertest';
import { sql } from '../../src/database/sql';
import { PaymentCustomerEntity } from '../../src/payments/entities/payment-customer.entity';
import { eventsOf, lastEventId } from '../support/events';
import { expectProblem } from '../support/problem';
import { makeOrder, makeProduct, ordersUrl } from '../support/commerce';
import { deliver, intentUrl, orderRow, sessionOrder, signedIn, withOrderPayments } from './order-payments-fixtures';

/**
 * docs/payments.md, "Orders": an order's PaymentIntent (the route), and Stripe's signed events
 * that move the order through the PATCH route's code path and events, against the Stripe stand-in
 * (every request checked against Stripe's spec).
 */
describe('payments: orders paid through Stripe PaymentIntents', () => {
  const ctx = withOrderPayments();
  const intentsOf = (orderId: number) =>
    ctx.standIn.objects('payment_intent').filter((pi) => pi.metadata?.sitebase_order_id === String(orderId));
  const customersOf = (userId: number) =>
    ctx.t.db.getRepository(PaymentCustomerEntity).findBy({ siteId: ctx.a.siteId, userId });

  it('a session user gets their order’s PaymentIntent: the order’s amount, metadata, their Customer; again: the same one', async () => {
    const { a, b } = ctx;
    const mug = await makeProduct(a, { unitAmount: 1250, quantityAvailable: 5 });
    const { auth, userId } = await signedIn(ctx.t, a);
    const order = await sessionOrder(ctx.t, a, auth, [[mug.id, 2]]);
    const res = await request(ctx.t.server).post(intentUrl(a, order.id)).set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      processor: 'stripe',
      mode: 'test',
      paymentIntentId: expect.stringMatching(/^pi_/),
      clientSecret: expect.stringMatching(/^pi_.+_secret_/),
      amount: 2500,
      currency: 'eur',
      status: 'requires_payment_method',
    });
    const [pi] = intentsOf(order.id);
    expect(pi).toEqual(
      expect.objectContaining({
        id: res.body.paymentIntentId,
        amount: 2500,
        currency: 'eur',
        description: `Order ${order.number}`,
        metadata: { sitebase_site_id: String(a.siteId), sitebase_order_id: String(order.id) },
        automatic_payment_methods: expect.objectContaining({ enabled: true }),
      }),
    );
    // No recurring line: nothing is saved for later.
    expect(pi.setup_future_usage ?? null).toBeNull();
    const [customer] = await customersOf(userId);
    expect(pi.customer).toBe(customer.customerId);
    expect(ctx.standIn.objects('customer').find((c) => c.id === customer.customerId)?.metadata).toEqual({
      sitebase_site_id: String(a.siteId),
      sitebase_user_id: String(userId),
    });
    const create = ctx.standIn.requests.find((r) => r.path === '/v1/payment_intents' && r.status === 200)!;
    expect(create.idempotencyKey).toBe(`sitebase-order-${a.siteId}-${order.id}-test`);

    const row = await orderRow(ctx.t, order.id);
    expect(row).toEqual(
      expect.objectContaining({
        paymentProcessor: 'stripe',
        paymentMode: 'test',
        processorPaymentId: pi.id,
        paymentStatus: 'pending',
      }),
    );
    // The client secret is answered, never stored.
    const { rows } = await sql(ctx.t.db, `SELECT row_to_json(o)::text AS r FROM orders o WHERE id = $1`, [order.id]);
    expect(rows[0].r).not.toContain('_secret_');
    const got = await request(ctx.t.server)
      .get(ordersUrl(a, `/${order.id}`))
      .set(auth);
    expect([got.body.paymentProcessor, got.body.paymentMode, got.body.processorPaymentId]).toEqual([
      'stripe',
      'test',
      pi.id,
    ]);

    // Again, with the session or a key: the same PaymentIntent, nothing new at Stripe.
    const again = await request(ctx.t.server).post(intentUrl(a, order.id)).set(auth);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
    const byKey = await a.api.post(intentUrl(a, order.id));
    expect([byKey.status, byKey.body.paymentIntentId]).toEqual([200, pi.id]);
    expect(intentsOf(order.id)).toHaveLength(1);
    expect(await customersOf(userId)).toHaveLength(1);

    // Another user's session, another tenant, nobody.
    const other = await signedIn(ctx.t, a);
    expectProblem(await request(ctx.t.server).post(intentUrl(a, order.id)).set(other.auth), 404, 'not_found');
    expectProblem(await b.api.post(intentUrl(a, order.id)), 404, 'site_not_found');
    expectProblem(await request(ctx.t.server).post(intentUrl(a, order.id)), 401, 'missing_credential');
  });

  it('a manual site is a 409 processor_not_connected; a paid or canceled order a 409 transition_forbidden; nothing is made', async () => {
    const { a, b } = ctx;
    const before = ctx.standIn.requests.length;
    const plain = await makeProduct(b);
    const manual = await makeOrder(b, [[plain.id, 1]]);
    expectProblem(await b.api.post(intentUrl(b, manual.id)), 409, 'processor_not_connected');
    expect((await orderRow(ctx.t, manual.id)).paymentProcessor).toBe('manual');

    const mug = await makeProduct(a);
    const paid = await makeOrder(a, [[mug.id, 1]]);
    await a.api
      .patch(ordersUrl(a, `/${paid.id}/payment`))
      .send({ paymentStatus: 'paid' })
      .expect(200);
    expectProblem(await a.api.post(intentUrl(a, paid.id)), 409, 'transition_forbidden');
    const canceled = await makeOrder(a, [[mug.id, 1]]);
    await a.api
      .patch(ordersUrl(a, `/${canceled.id}/fulfillment`))
      .send({ status: 'canceled' })
      .expect(200);
    expectProblem(await a.api.post(intentUrl(a, canceled.id)), 409, 'transition_forbidden');
    expect(ctx.standIn.requests.length).toBe(before);
  });

  it('Stripe down: 503 processor_unavailable and the order unchanged; the next try makes it', async () => {
    const { a } = ctx;
    const mug = await makeProduct(a);
    const order = await makeOrder(a, [[mug.id, 1]]);
    ctx.standIn.failNext({ status: 500, times: 2, match: (r) => r.path === '/v1/payment_intents' });
    expectProblem(await a.api.post(intentUrl(a, order.id)), 503, 'processor_unavailable');
    expect(await orderRow(ctx.t, order.id)).toEqual(
      expect.objectContaining({ paymentProcessor: 'manual', processorPaymentId: null }),
    );
    const ok = await a.api.post(intentUrl(a, order.id));
    expect(ok.status).toBe(200);
    expect((await orderRow(ctx.t, order.id)).processorPaymentId).toBe(ok.body.paymentIntentId);
  });

  it('a key’s order with a recurring line: the Customer of the order’s address saves the card; the signed success pays it once', async () => {
    const { a } = ctx;
    const plan = await makeProduct(a, {
      name: 'Monthly',
      unitAmount: 900,
      recurring: { interval: 'month', intervalCount: 1 },
    });
    const order = await makeOrder(a, [[plan.id, 1]], { customer: { email: 'Renew@Example.com', name: 'Rene' } });
    const from = await lastEventId(ctx.t);
    const res = await a.api.post(intentUrl(a, order.id));
    expect(res.status).toBe(200);
    // The site user of the order's address was made (they can sign in with it), and their Customer.
    const [user] = await sql<{ id: number }>(
      ctx.t.db,
      `SELECT id FROM site_users WHERE site_id = $1 AND email = 'renew@example.com'`,
      [a.siteId],
      { bigints: ['id'] },
    ).then((r) => r.rows);
    expect(await eventsOf(ctx.t, a, from)).toEqual([
      { name: 'user.created', payload: { id: user.id, status: 'active' } },
    ]);
    const [customer] = await customersOf(user.id);
    const [pi] = intentsOf(order.id);
    expect([pi.customer, pi.setup_future_usage]).toEqual([customer.customerId, 'off_session']);

    const afterIntent = await lastEventId(ctx.t);
    const event = ctx.standIn.eventFor('payment_intent.succeeded', pi.id);
    expect(await deliver(ctx, event)).toEqual(expect.objectContaining({ outcome: 'applied', replayed: false }));
    const row = await orderRow(ctx.t, order.id);
    expect(row).toEqual(
      expect.objectContaining({
        paymentStatus: 'paid',
        expiresAt: null,
        processorPaymentId: pi.id,
        paymentMode: 'test',
      }),
    );
    expect(row.paidAt).not.toBeNull();
    const events = await eventsOf(ctx.t, a, afterIntent);
    expect(events.map((e) => e.name)).toEqual(['order.paid', 'order.subscription_requested']);
    expect(events[0].payload).toEqual({
      id: order.id,
      number: order.number,
      currency: 'EUR',
      totalAmount: 900,
      processorPaymentId: pi.id,
    });
    expect(events[1].payload).toEqual(expect.objectContaining({ orderId: order.id, productId: plan.id, userId: null }));
    expect((await customersOf(user.id))[0].paymentMethodId).toBe('pm_card_visa');

    // The same event again (a redelivery), and another event of the same success: nothing new.
    expect(await deliver(ctx, event)).toEqual(expect.objectContaining({ replayed: true }));
    const second = ctx.standIn.eventFor('payment_intent.succeeded', pi.id);
    expect(await deliver(ctx, second)).toEqual(expect.objectContaining({ outcome: 'ignored', replayed: false }));
    expect(await eventsOf(ctx.t, a, afterIntent)).toHaveLength(2);
    // Paid: its PaymentIntent is not answered any more.
    expectProblem(await a.api.post(intentUrl(a, order.id)), 409, 'transition_forbidden');
  });

  it('a success for another amount than the order’s (signed, valid) pays nothing', async () => {
    const { a } = ctx;
    const mug = await makeProduct(a, { unitAmount: 5000 });
    const order = await makeOrder(a, [[mug.id, 1]]);
    const { body } = await a.api.post(intentUrl(a, order.id)).expect(200);
    const from = await lastEventId(ctx.t);
    const event = ctx.standIn.eventFor('payment_intent.succeeded', body.paymentIntentId);
    const pi = event.data.object as unknown as Record<string, unknown>;
    Object.assign(pi, { amount: 50, amount_received: 50 });
    expect(await deliver(ctx, event)).toEqual(expect.objectContaining({ outcome: 'ignored' }));
    const other = ctx.standIn.eventFor('payment_intent.succeeded', body.paymentIntentId);
    (other.data.object as unknown as Record<string, unknown>).currency = 'usd';
    expect(await deliver(ctx, other)).toEqual(expect.objectContaining({ outcome: 'ignored' }));
    expect((await orderRow(ctx.t, order.id)).paymentStatus).toBe('pending');
    expect(await eventsOf(ctx.t, a, from)).toEqual([]);
  });

  it('a success whose metadata names another site’s order is ignored; so is one of no order of Sitebase’s', async () => {
    const { a, b } = ctx;
    const plain = await makeProduct(b);
    const theirs = await makeOrder(b, [[plain.id, 1]]);
    const mug = await makeProduct(a);
    const order = await makeOrder(a, [[mug.id, 1]]);
    const { body } = await a.api.post(intentUrl(a, order.id)).expect(200);
    const event = ctx.standIn.eventFor('payment_intent.succeeded', body.paymentIntentId);
    const pi = event.data.object as unknown as { metadata: Record<string, string> };
    pi.metadata = { sitebase_site_id: String(b.siteId), sitebase_order_id: String(theirs.id) };
    expect(await deliver(ctx, event)).toEqual(expect.objectContaining({ outcome: 'ignored' }));
    const foreign = ctx.standIn.eventFor('payment_intent.succeeded', body.paymentIntentId);
    (foreign.data.object as unknown as { metadata: Record<string, string> }).metadata = {};
    expect(await deliver(ctx, foreign)).toEqual(expect.objectContaining({ outcome: 'ignored' }));
    expect((await orderRow(ctx.t, theirs.id)).paymentStatus).toBe('pending');
    expect((await orderRow(ctx.t, order.id)).paymentStatus).toBe('pending');
  });

  it('charge.refunded before payment_intent.succeeded: paid then refunded, each event once; the late success changes nothing', async () => {
    const { a } = ctx;
    const mug = await makeProduct(a, { unitAmount: 700 });
    const order = await makeOrder(a, [[mug.id, 3]]);
    const { body } = await a.api.post(intentUrl(a, order.id)).expect(200);
    const from = await lastEventId(ctx.t);
    const refunded = ctx.standIn.eventFor('charge.refunded', body.paymentIntentId);
    expect(await deliver(ctx, refunded)).toEqual(expect.objectContaining({ outcome: 'applied' }));
    expect(await orderRow(ctx.t, order.id)).toEqual(
      expect.objectContaining({ paymentStatus: 'refunded', processorPaymentId: body.paymentIntentId }),
    );
    expect((await eventsOf(ctx.t, a, from)).map((e) => e.name)).toEqual(['order.paid', 'order.refunded']);
    const late = ctx.standIn.eventFor('payment_intent.succeeded', body.paymentIntentId);
    expect(await deliver(ctx, late)).toEqual(expect.objectContaining({ outcome: 'ignored' }));
    expect(await deliver(ctx, refunded)).toEqual(expect.objectContaining({ replayed: true }));
    expect((await orderRow(ctx.t, order.id)).paymentStatus).toBe('refunded');
    expect(await eventsOf(ctx.t, a, from)).toHaveLength(2);
  });

  it('a failed payment leaves the order pending with its hold; the buyer can try again', async () => {
    const { a } = ctx;
    const print = await makeProduct(a, { quantityAvailable: 2 });
    const { auth } = await signedIn(ctx.t, a);
    const order = await sessionOrder(ctx.t, a, auth, [[print.id, 2]]);
    const { body } = await request(ctx.t.server).post(intentUrl(a, order.id)).set(auth).expect(200);
    const from = await lastEventId(ctx.t);
    const failed = ctx.standIn.eventFor('payment_intent.payment_failed', body.paymentIntentId);
    expect(await deliver(ctx, failed)).toEqual(expect.objectContaining({ outcome: 'applied' }));
    const row = await orderRow(ctx.t, order.id);
    expect([row.paymentStatus, row.expiresAt?.toISOString()]).toEqual(['pending', order.expiresAt]);
    expect(await eventsOf(ctx.t, a, from)).toEqual([]);
    const stock = await ctx.t.db.query(`SELECT quantity_available FROM products WHERE id = $1`, [print.id]);
    expect(stock[0].quantity_available).toBe(0);
    const retry = await request(ctx.t.server).post(intentUrl(a, order.id)).set(auth);
    expect([retry.status, retry.body.paymentIntentId, retry.body.status]).toEqual([
      200,
      body.paymentIntentId,
      'requires_payment_method',
    ]);
  });

  it('a success delivered before the route recorded its PaymentIntent (our metadata, this site, the order’s amount) pays the order', async () => {
    const { a } = ctx;
    const mug = await makeProduct(a, { unitAmount: 1500 });
    const order = await makeOrder(a, [[mug.id, 1]]);
    const { body } = await a.api.post(intentUrl(a, order.id)).expect(200);
    // As if the route's transaction had not committed yet: the order names no PaymentIntent.
    await ctx.t.db.query(
      `UPDATE orders SET processor_payment_id = NULL, payment_processor = 'manual', payment_mode = NULL WHERE id = $1`,
      [order.id],
    );
    const event = ctx.standIn.eventFor('payment_intent.succeeded', body.paymentIntentId);
    expect(await deliver(ctx, event)).toEqual(expect.objectContaining({ outcome: 'applied' }));
    expect(await orderRow(ctx.t, order.id)).toEqual(
      expect.objectContaining({
        paymentStatus: 'paid',
        paymentProcessor: 'stripe',
        paymentMode: 'test',
        processorPaymentId: body.paymentIntentId,
      }),
    );
  });

  it('every request the adapter sent passed Stripe’s spec', () => {
    expect(ctx.standIn.validatedCount).toBeGreaterThan(0);
    expect(ctx.standIn.invalid()).toEqual([]);
  });
});
