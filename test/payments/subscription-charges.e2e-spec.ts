import { sql } from '../../src/database/sql';
import { StripeChargeJob } from '../../src/payments/subscriptions/stripe-charge.job';
import { eventually } from '../support/app';
import { lastEventId } from '../support/events';
import {
  chargeRequests,
  intentsOf,
  lineOf,
  lineWhen,
  postStripeEvent,
  renew,
  stripeSubscription,
  subOf,
  subscriptionEvents,
  withStripeSubscriptions,
} from '../support/stripe-subscriptions';

/**
 * docs/payments.md, "Subscriptions": a subscription started by an order paid through Stripe is
 * charged by Stripe, each ledger line with an off-session PaymentIntent on the customer's saved
 * payment method (the charge job), paid once whether the job's answer or Stripe's event comes first.
 */
describe('payments: subscriptions charged through Stripe', () => {
  const h = withStripeSubscriptions('stripe-subs');
  const users = (rest = '') => `/api/v2/sites/${h.a.siteName}/users${rest}`;

  it('an order paid through Stripe starts a `stripe` subscription in its mode, its first period paid by the order', async () => {
    const sub = await stripeSubscription(h);
    expect(sub).toEqual(expect.objectContaining({ processor: 'stripe', processorMode: 'test', status: 'active' }));
    const listed = await h.a.api.get(users(`/${sub.userId}/subscriptions`)).expect(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: sub.id, processor: 'stripe', status: 'active' })]);
    const { rows } = await sql(
      h.t.db,
      'SELECT kind, status, paid_with FROM user_subscription_entries WHERE subscription_id = $1',
      [sub.id],
    );
    expect(rows).toEqual([{ kind: 'initial', status: 'paid', paid_with: 'order' }]);
    // A manual order still makes a manual subscription (test/users covers it); no charge was asked of Stripe.
    expect(chargeRequests(h, sub.id)).toEqual([]);
  });

  it('a renewal is charged off-session on the saved payment method and paid by the job: active, paid with stripe, its events', async () => {
    const sub = await stripeSubscription(h);
    const [customer] = (
      await sql<{ customer_id: string }>(h.t.db, 'SELECT customer_id FROM payment_customers WHERE user_id = $1', [
        sub.userId,
      ])
    ).rows;
    const after = await lastEventId(h.t);
    const renewal = await renew(h, sub);
    expect(renewal).toEqual(expect.objectContaining({ status: 'pending', amount: 1000 }));
    // Asked of Stripe, not yet answered: the subscription does not fall due.
    expect((await subOf(h, sub.id)).status).toBe('active');
    const paid = await lineWhen(h, renewal.id, (e) => e.status === 'paid');
    const [req] = chargeRequests(h, sub.id);
    expect(req).toEqual(
      expect.objectContaining({
        valid: true,
        status: 200,
        idempotencyKey: `sitebase-charge-${h.a.siteId}-${renewal.id}-1`,
        params: expect.objectContaining({
          amount: '1000',
          currency: 'eur',
          customer: customer.customer_id,
          payment_method: 'pm_card_visa',
          off_session: 'true',
          confirm: 'true',
          metadata: {
            sitebase_site_id: String(h.a.siteId),
            sitebase_subscription_id: String(sub.id),
            sitebase_entry_id: String(renewal.id),
            sitebase_user_id: String(sub.userId),
            sitebase_charge_attempt: '1',
          },
        }),
      }),
    );
    const [intent] = intentsOf(h, renewal.id);
    expect(intent).toEqual(
      expect.objectContaining({ status: 'succeeded', amount: 1000, customer: customer.customer_id }),
    );
    expect(paid).toEqual(
      expect.objectContaining({ status: 'paid', paidWith: 'stripe', processorChargeId: intent.id, chargeAttempts: 0 }),
    );
    expect(await subOf(h, sub.id)).toEqual(expect.objectContaining({ status: 'active', unpaidCancelAt: null }));
    expect(
      (await subscriptionEvents(h, sub.id, after)).map((e) => [e.name, e.payload.change ?? e.payload.status]),
    ).toEqual([
      ['user.subscription.updated', 'renewed'],
      ['user.subscription.charged', 'pending'],
      ['user.subscription.charged', 'paid'],
    ]);
    const charged = (await subscriptionEvents(h, sub.id, after)).at(-1)!;
    expect(charged.payload).toEqual({
      id: renewal.id,
      subscriptionId: sub.id,
      userId: sub.userId,
      kind: 'renewal',
      amount: 1000,
      currency: 'EUR',
      status: 'paid',
      paidWith: 'stripe',
    });

    // Stripe's own event for that intent, after the job's answer: acknowledged, nothing paid twice.
    const late = await postStripeEvent(h, h.a, h.standIn.eventFor('payment_intent.succeeded', intent.id));
    expect(late.status).toBe(200);
    expect(late.body).toEqual(expect.objectContaining({ outcome: 'ignored', replayed: false }));
    expect((await subscriptionEvents(h, sub.id, after)).filter((e) => e.payload.status === 'paid')).toHaveLength(1);
  });

  it('the same attempt run twice at once makes one PaymentIntent (its idempotency key) and pays the line once', async () => {
    const sub = await stripeSubscription(h);
    const after = await lastEventId(h.t);
    const renewal = await renew(h, sub);
    const job = h.t.app.get(StripeChargeJob);
    const payload = { siteId: h.a.siteId, subscriptionId: sub.id, entryId: renewal.id, attempt: 1 };
    await Promise.all([job.run(payload), job.run(payload)]);
    await lineWhen(h, renewal.id, (e) => e.status === 'paid');
    const requests = chargeRequests(h, sub.id);
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(new Set(requests.map((r) => r.idempotencyKey))).toEqual(
      new Set([`sitebase-charge-${h.a.siteId}-${renewal.id}-1`]),
    );
    expect(requests.filter((r) => r.replayed).length).toBe(requests.length - 1);
    expect(intentsOf(h, renewal.id)).toHaveLength(1);
    // The queued job comes after: the line is paid, it asks nothing.
    await new Promise((r) => setTimeout(r, 1500));
    expect(chargeRequests(h, sub.id)).toHaveLength(requests.length);
    const charged = (await subscriptionEvents(h, sub.id, after)).filter((e) => e.name === 'user.subscription.charged');
    expect(charged.map((e) => e.payload.status)).toEqual(['pending', 'paid']);
  });

  it('an operator’s charge of a Stripe subscription is charged through Stripe', async () => {
    const sub = await stripeSubscription(h);
    const res = await h.a.api
      .post(users(`/${sub.userId}/subscriptions/${sub.id}/charges`))
      .send({ amount: 1500, description: 'Extra seats' })
      .expect(201);
    expect(res.body.charge).toEqual(
      expect.objectContaining({ kind: 'charge', amount: 1500, status: 'pending', paidWith: null }),
    );
    expect(res.body.charge.failure).toBeUndefined();
    const paid = await lineWhen(h, res.body.charge.id, (e) => e.status === 'paid');
    const [intent] = intentsOf(h, paid.id);
    expect(intent).toEqual(expect.objectContaining({ amount: 1500, status: 'succeeded', description: 'Extra seats' }));
    expect(paid).toEqual(expect.objectContaining({ paidWith: 'stripe', processorChargeId: intent.id }));
    expect((await subOf(h, sub.id)).status).toBe('active');
  });

  it('Stripe’s succeeded event arriving before the job’s answer pays the line; the job’s late answer changes nothing', async () => {
    const sub = await stripeSubscription(h);
    let hanging = true;
    const mine = (r: { path: string; params: Record<string, unknown> }) =>
      hanging &&
      r.path === '/v1/payment_intents' &&
      (r.params.metadata as Record<string, string> | undefined)?.sitebase_subscription_id === String(sub.id);
    // The job's request reaches Stripe, which charges, but its answer is lost (the client times out and tries again).
    h.standIn.hangNext({ times: 5, match: mine });
    const after = await lastEventId(h.t);
    const renewal = await renew(h, sub);
    const [asked] = await (async () => {
      for (let i = 0; i < 100 && chargeRequests(h, sub.id).length === 0; i++)
        await new Promise((r) => setTimeout(r, 100));
      return chargeRequests(h, sub.id);
    })();
    expect(asked.status).toBe(0);
    // What Stripe did with it: the same request under the same key (the job's retry replays it).
    hanging = false;
    const stripe = h.stripe.get(h.a)!;
    const intent = await stripe.paymentIntents.create(asked.params as never, { idempotencyKey: asked.idempotencyKey! });
    expect(intent.status).toBe('succeeded');
    const early = await postStripeEvent(h, h.a, h.standIn.eventFor('payment_intent.succeeded', intent.id));
    expect(early.body).toEqual(expect.objectContaining({ outcome: 'applied' }));
    expect(await lineOf(h, renewal.id)).toEqual(
      expect.objectContaining({ status: 'paid', paidWith: 'stripe', processorChargeId: intent.id }),
    );
    // The job's retry gets the stored answer (replayed), finds the line paid: one intent, one paid event.
    await eventually(
      async () => chargeRequests(h, sub.id).some((r) => r.replayed && r.status === 200) || undefined,
      30000,
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(intentsOf(h, renewal.id)).toHaveLength(1);
    const charged = (await subscriptionEvents(h, sub.id, after)).filter((e) => e.name === 'user.subscription.charged');
    expect(charged.map((e) => e.payload.status)).toEqual(['pending', 'paid']);
  });

  it('ignores an intent event naming another site, a line of another site, or another amount; and an order’s intent', async () => {
    const sub = await stripeSubscription(h, 'pm_card_chargeDeclined');
    const renewal = await renew(h, sub);
    await lineWhen(h, renewal.id, (e) => e.chargeAttempts === 1);
    const stripe = h.stripe.get(h.a)!;
    const metadata = {
      sitebase_site_id: String(h.a.siteId),
      sitebase_subscription_id: String(sub.id),
      sitebase_entry_id: String(renewal.id),
      sitebase_charge_attempt: '9',
    };
    const intentOf = async (amount: number, meta: Record<string, string>) =>
      stripe.paymentIntents.create({
        amount,
        currency: 'eur',
        payment_method: 'pm_card_visa',
        confirm: true,
        automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
        metadata: meta,
      });
    const cases = [
      // Sent to site a, but says it is b's.
      [h.a, await intentOf(1000, { ...metadata, sitebase_site_id: String(h.b.siteId) })],
      // Sent to site b (its own keys), naming a's line.
      [h.b, await intentOf(1000, metadata)],
      [h.b, await intentOf(1000, { ...metadata, sitebase_site_id: String(h.b.siteId) })],
      // Another amount than the line's.
      [h.a, await intentOf(1001, metadata)],
      // An order's intent (no entry): the orders adapter's (an order it does not find: ignored there too;
      // an existing paid order's extra payment would be refunded by it, test/payments/order-payments).
      [h.a, await intentOf(1000, { sitebase_site_id: String(h.a.siteId), sitebase_order_id: '999999999' })],
    ] as const;
    for (const [x, intent] of cases) {
      for (const type of ['payment_intent.succeeded', 'payment_intent.payment_failed']) {
        const res = await postStripeEvent(h, x, h.standIn.eventFor(type, intent.id));
        expect([res.status, res.body.outcome]).toEqual([200, 'ignored']);
      }
    }
    expect(await lineOf(h, renewal.id)).toEqual(
      expect.objectContaining({ status: 'pending', paidWith: null, chargeAttempts: 1 }),
    );
  });

  afterAll(() => {
    expect(h.standIn.invalid()).toEqual([]);
    expect(h.standIn.validatedCount).toBeGreaterThan(20);
  });
});
