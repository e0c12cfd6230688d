import Stripe from 'stripe';
import { startStripeStandIn, StripeStandIn } from '../support/stripe/stand-in';
import { stripeFailure, withStandInClient } from '../support/stripe/with-stand-in';

/**
 * The Stripe stand-in on the wire: Stripe's form encoding (both spellings of arrays, deep
 * nesting, keys that must not reach an object's prototype), the key and the route checks,
 * and bodies that are not form-encoded.
 */
describe('Stripe stand-in: the wire', () => {
  const s = withStandInClient();
  let standIn: StripeStandIn;
  let stripe: Stripe;
  beforeAll(() => ({ standIn, stripe } = s));

  const failure = stripeFailure;
  const post = async (path: string, body: string, type = 'application/x-www-form-urlencoded') => {
    const res = await fetch(`${standIn.url}${path}`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_standin', 'content-type': type },
      body,
    });
    return {
      status: res.status,
      body: (await res.json()) as { error?: Record<string, unknown> } & Record<string, unknown>,
    };
  };

  it('accepts expand in both of Stripe’s spellings, and nested parameters to any depth', async () => {
    const product = await stripe.products.create({ name: 'Deep' });
    const session = await stripe.checkout.sessions.create({
      mode: 'payment',
      success_url: 'https://shop.example/ok',
      line_items: [
        { price_data: { currency: 'eur', unit_amount: 300, product: product.id }, quantity: 2 },
        {
          price_data: { currency: 'eur', unit_amount: 100, product_data: { name: 'Lid', metadata: { a: 'b' } } },
          quantity: 1,
        },
      ],
      payment_intent_data: { metadata: { order: '3' }, setup_future_usage: 'off_session' },
      expand: ['payment_intent'],
    });
    expect(session.amount_total).toBe(700);
    const res = await fetch(`${standIn.url}/v1/products/${product.id}?expand[]=default_price`, {
      headers: { authorization: 'Bearer sk_test_standin' },
    });
    expect(res.status).toBe(200);
    expect(standIn.requests.at(-1)).toMatchObject({ valid: true, params: { expand: ['default_price'] } });
  });

  it('answers 401 without a secret key and 404 for a route the spec does not have', async () => {
    const publishable = new Stripe('pk_test_nope', { ...standIn.clientOptions(), maxNetworkRetries: 0 });
    expect(await failure(publishable.products.create({ name: 'x' }))).toMatchObject({
      type: 'StripeAuthenticationError',
      statusCode: 401,
    });
    const res = await fetch(`${standIn.url}/v1/plans`, { headers: { authorization: 'Bearer sk_test_standin' } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
    expect(
      standIn
        .invalid()
        .slice(-2)
        .map((r) => r.status),
    ).toEqual([401, 404]);
  });

  it('decodes indexed and bracketed arrays and deep hashes, and refuses keys that are not parameters', async () => {
    const ok = await post(
      '/v1/products',
      'name=Pot&metadata[a]=1&metadata[b]=x%20y&images[]=https%3A%2F%2Fi.example%2F1.png&images[]=https%3A%2F%2Fi.example%2F2.png',
    );
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      name: 'Pot',
      metadata: { a: '1', b: 'x y' },
      images: ['https://i.example/1.png', 'https://i.example/2.png'],
    });

    const proto = await post('/v1/products', 'name=Pot&__proto__[polluted]=1');
    expect(proto).toMatchObject({ status: 400, body: { error: { code: 'parameter_unknown', param: '__proto__' } } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    const badKey = await post('/v1/products', 'name=Pot&metadata[a=1');
    expect(badKey).toMatchObject({
      status: 400,
      body: { error: { type: 'invalid_request_error', param: 'metadata[a' } },
    });
    const json = await post('/v1/products', JSON.stringify({ name: 'Pot' }), 'application/json');
    expect(json).toMatchObject({ status: 400, body: { error: { type: 'invalid_request_error' } } });
    const deep = await post(
      '/v1/checkout/sessions',
      'mode=payment&success_url=https%3A%2F%2Fs.example&line_items[0][quantity]=1&line_items[0][price_data][currency]=eur&line_items[0][price_data][unit_amount]=5&line_items[0][price_data][product_data][name]=N&line_items[0][price_data][product_data][metadata][k]=v&line_items[0][price_data][recurring][interval]=sometimes',
    );
    expect(deep).toMatchObject({
      status: 400,
      body: { error: { code: 'parameter_invalid_enum', param: 'line_items[0][price_data][recurring][interval]' } },
    });
    expect(
      standIn
        .invalid()
        .slice(-4)
        .map((r) => r.valid),
    ).toEqual([false, false, false, false]);
  });

  it('updates an intent, and reset() forgets requests, objects and keys', async () => {
    const own = await startStripeStandIn();
    const client = new Stripe('sk_test_reset', { ...own.clientOptions(), maxNetworkRetries: 0 });
    const pi = await client.paymentIntents.create({ amount: 100, currency: 'eur' }, { idempotencyKey: 'k1' });
    const updated = await client.paymentIntents.update(pi.id, { amount: 150, metadata: { order: '9' } });
    expect(updated).toMatchObject({ amount: 150, metadata: { order: '9' }, status: 'requires_payment_method' });
    expect(own.objects('payment_intent')).toHaveLength(1);
    own.reset();
    expect([own.requests.length, own.objects().length, own.validatedCount]).toEqual([0, 0, 0]);
    const missing = await failure(client.paymentIntents.retrieve(pi.id));
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    const again = await client.paymentIntents.create({ amount: 100, currency: 'eur' }, { idempotencyKey: 'k1' });
    expect(again.id).not.toBe(pi.id);
    await own.close();
  });
});
