import Stripe from 'stripe';
import { signStripeEvent, stripeEvent } from '../support/stripe/events';
import { startStripeStandIn, StripeStandIn } from '../support/stripe/stand-in';
import { stripeFailure, withStandInClient } from '../support/stripe/with-stand-in';
import { scaled } from '../support/time-scale';

/**
 * The Stripe stand-in's failures and replays (500, 429, a hang, Idempotency-Key) as the
 * official `stripe` package meets them, and webhook events built from Stripe's fixtures and
 * signed with the package's own test-header helper.
 */
describe('Stripe stand-in: failures, idempotency and events', () => {
  const s = withStandInClient();
  let standIn: StripeStandIn;
  let stripe: Stripe;
  beforeAll(() => ({ standIn, stripe } = s));

  const failure = stripeFailure;

  it('replays an answer for the same Idempotency-Key and parameters, and refuses other parameters', async () => {
    const first = await stripe.products.create({ name: 'Once' }, { idempotencyKey: 'sync-product-1' });
    const again = await stripe.products.create({ name: 'Once' }, { idempotencyKey: 'sync-product-1' });
    expect(again).toEqual(first);
    expect(standIn.objects('product').filter((p) => p.name === 'Once')).toHaveLength(1);
    expect(standIn.requests.at(-1)).toMatchObject({ idempotencyKey: 'sync-product-1', replayed: true, valid: true });

    const other = await failure(stripe.products.create({ name: 'Twice' }, { idempotencyKey: 'sync-product-1' }));
    expect(other).toMatchObject({ type: 'StripeIdempotencyError', statusCode: 400 });
    // A key is scoped to its mode, as at Stripe (each mode is its own account of keys).
    const live = new Stripe('sk_live_standin', { ...standIn.clientOptions(), maxNetworkRetries: 0 });
    const liveProduct = await live.products.create({ name: 'Twice' }, { idempotencyKey: 'sync-product-1' });
    expect(liveProduct.livemode).toBe(true);

    const declined = () =>
      stripe.paymentIntents.create(
        { amount: 300, currency: 'eur', payment_method: 'pm_card_chargeDeclined', confirm: true },
        { idempotencyKey: 'renewal-7' },
      );
    const a = await failure(declined());
    const b = await failure(declined());
    expect(b.payment_intent!.id).toBe(a.payment_intent!.id);
    expect(standIn.objects('payment_intent').filter((pi) => pi.id === a.payment_intent!.id)).toHaveLength(1);
  });

  it('retries a 500 with the same idempotency key, which the stand-in then answers', async () => {
    const retrying = new Stripe('sk_test_standin', { ...standIn.clientOptions(), maxNetworkRetries: 2 });
    standIn.failNext({ status: 500, match: (r) => r.operationId === 'PostCustomers' });
    const customer = await retrying.customers.create({ email: 'retry@example.com' });
    expect(customer.email).toBe('retry@example.com');
    const attempts = standIn.requests.filter((r) => r.operationId === 'PostCustomers').slice(-2);
    expect(attempts.map((r) => [r.status, r.injected])).toEqual([
      [500, true],
      [200, false],
    ]);
    expect(attempts[0].idempotencyKey).toMatch(/^stripe-node-retry-/);
    expect(attempts[1].idempotencyKey).toBe(attempts[0].idempotencyKey);
    expect(standIn.objects('customer').filter((c) => c.email === 'retry@example.com')).toHaveLength(1);

    standIn.failNext({ status: 503, times: 3 });
    const gaveUp = await failure(retrying.customers.create({ email: 'down@example.com' }));
    expect(gaveUp).toMatchObject({ type: 'StripeAPIError', statusCode: 503 });
    expect(standIn.objects('customer').filter((c) => c.email === 'down@example.com')).toEqual([]);
  });

  it('answers 429 rate_limit, which the client does not retry', async () => {
    standIn.failNext({ status: 429 });
    const limited = await failure(stripe.balance.retrieve());
    expect(limited).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
    expect(limited).toMatchObject({ statusCode: 429, code: 'rate_limit' });
    expect(await stripe.balance.retrieve()).toMatchObject({ object: 'balance' });
  });

  it('hangs a request until the client’s timeout, and still closes', async () => {
    const impatient = new Stripe('sk_test_standin', { ...standIn.clientOptions(), maxNetworkRetries: 0, timeout: 300 });
    standIn.hangNext();
    const hung = await failure(impatient.products.create({ name: 'Never answered' }));
    expect(hung).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect(standIn.requests.at(-1)).toMatchObject({ status: 0, injected: true, valid: true });
    expect(standIn.objects('product').filter((p) => p.name === 'Never answered')).toEqual([]);

    const own = await startStripeStandIn();
    const client = new Stripe('sk_test_x', { ...own.clientOptions(), maxNetworkRetries: 0, timeout: scaled(10_000) });
    own.hangNext({ times: 2 });
    const pending = [client.balance.retrieve(), client.accounts.retrieveCurrent()].map((p) => failure(p));
    while (own.requests.length < 2) await new Promise<void>((r) => setTimeout(r, 10));
    const started = Date.now();
    await own.close();
    expect(Date.now() - started).toBeLessThan(scaled(1000));
    for (const e of await Promise.all(pending)) expect(e).toBeInstanceOf(Stripe.errors.StripeConnectionError);
  });

  it('signs events the stripe package verifies, and refuses a tampered or stale one', () => {
    const pi = { id: 'pi_123', object: 'payment_intent', amount: 100, status: 'succeeded', livemode: false };
    const event = stripeEvent('payment_intent.succeeded', pi);
    expect(event).toMatchObject({ object: 'event', type: 'payment_intent.succeeded', data: { object: pi } });
    expect(event).toMatchObject({ api_version: Stripe.API_VERSION, livemode: false, pending_webhooks: 1 });
    expect(event.id).toMatch(/^evt_/);
    const { payload, header } = signStripeEvent(event, 'whsec_test');
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(stripe.webhooks.constructEvent(payload, header, 'whsec_test')).toEqual(event);
    expect(() => stripe.webhooks.constructEvent(payload.replace('100', '1'), header, 'whsec_test')).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    expect(() => stripe.webhooks.constructEvent(payload, header, 'whsec_other')).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    const stale = signStripeEvent(event, 'whsec_test', { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    expect(() => stripe.webhooks.constructEvent(stale.payload, stale.header, 'whsec_test')).toThrow(/tolerance/);
  });

  it('builds events of its stored objects, moving them to the announced state', async () => {
    const pi = await stripe.paymentIntents.create({ amount: 4200, currency: 'eur', metadata: { order: '5' } });
    const succeeded = standIn.eventFor('payment_intent.succeeded', pi.id);
    expect(succeeded.data.object).toMatchObject({ id: pi.id, status: 'succeeded', metadata: { order: '5' } });
    const stored = await stripe.paymentIntents.retrieve(pi.id);
    expect(stored).toMatchObject({ status: 'succeeded', amount_received: 4200 });
    expect(stored.latest_charge).toMatch(/^ch_/);
    expect(await stripe.events.retrieve(succeeded.id)).toEqual(succeeded);

    const refunded = standIn.eventFor('charge.refunded', pi.id);
    expect(refunded.data.object).toMatchObject({
      object: 'charge',
      id: stored.latest_charge,
      refunded: true,
      amount_refunded: 4200,
      payment_intent: pi.id,
    });
    const { payload, header } = signStripeEvent(refunded, 'whsec_site');
    expect(stripe.webhooks.constructEvent(payload, header, 'whsec_site').type).toBe('charge.refunded');

    const failedPi = await stripe.paymentIntents.create({ amount: 100, currency: 'eur' });
    const failed = standIn.eventFor('payment_intent.payment_failed', failedPi.id);
    expect(failed.data.object).toMatchObject({
      status: 'requires_payment_method',
      last_payment_error: { code: 'card_declined' },
    });

    const product = await stripe.products.create({ name: 'Box' });
    const price = await stripe.prices.create({ product: product.id, currency: 'eur', unit_amount: 800 });
    const session = await stripe.checkout.sessions.create({
      mode: 'payment',
      success_url: 'https://shop.example/ok',
      line_items: [{ price: price.id, quantity: 1 }],
    });
    const completed = standIn.eventFor('checkout.session.completed', session.id);
    expect(completed.data.object).toMatchObject({ status: 'complete', payment_status: 'paid' });
    const paid = await stripe.paymentIntents.retrieve(
      (completed.data.object as Stripe.Checkout.Session).payment_intent as string,
    );
    expect(paid).toMatchObject({ status: 'succeeded', amount: 800 });
  });

  it('counted every request above against the spec', () => {
    expect(standIn.validatedCount).toBeGreaterThan(20);
    expect(standIn.invalid()).toEqual([]);
  });
});
