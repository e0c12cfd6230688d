import { OrderEntity } from '../../src/orders/entities/order.entity';
import { signatureHeader } from '../../src/orders/fulfillment-signature';
import request from 'supertest';
import { withClient } from '../support/api-client';
import { connectStripe, signedStripeEvent, stripeEventsUrl } from '../support/stripe-connect';
import { startStripeStandIn, StripeStandIn } from '../support/stripe/stand-in';

/** Every Orders operation through the generated client (docs/openapi.md). */
describe('generated client: orders', () => {
  // The app's Stripe is the stand-in, started before the app (its URL is read when the app starts).
  const env: Record<string, string> = { STRIPE_MAX_NETWORK_RETRIES: '1', STRIPE_TIMEOUT_MS: '2000' };
  let standIn: StripeStandIn;
  beforeAll(async () => {
    standIn = await startStripeStandIn();
    env.STRIPE_API_BASE = standIn.url;
  });
  afterAll(() => standIn?.close());
  const s = withClient(2, { env });
  const site = () => ({ siteName: s.a.siteName });

  it('create, list, get, payment, fulfillment, the secret and a signed notification', async () => {
    const product = await s.api.POST('/api/v2/sites/{siteName}/products', {
      params: { path: site() },
      body: { name: 'Mug', unitAmount: 1800, currency: 'EUR', quantityAvailable: 5, recurring: null },
    });
    const productId = product.data!.id;
    const created = await s.api.POST('/api/v2/sites/{siteName}/orders', {
      params: { path: site(), header: { 'Idempotency-Key': 'client-order-1' } },
      body: {
        lines: [{ productId, quantity: 3 }],
        customer: { email: 'ada@example.com', name: 'Ada' },
        shippingAddress: { line1: '12 Harbour Street', city: 'Bristol', country: 'GB' },
        metadata: { cartId: 'c_1' },
      },
    });
    expect([created.response.status, created.data?.totalAmount, created.data?.number]).toEqual([201, 5400, 1]);
    const id = created.data!.id;
    const [lineId] = created.data!.lines.map((l) => l.id);
    expect(await s.t.db.getRepository(OrderEntity).findOneByOrFail({ id })).toEqual(
      expect.objectContaining({ siteId: s.a.siteId, totalAmount: 5400 }),
    );

    const list = await s.api.GET('/api/v2/sites/{siteName}/orders', {
      params: { path: site(), query: { limit: 5, email: 'ADA@example.com', fulfillmentStatus: 'unfulfilled' } },
    });
    expect(list.data!.data.map((o) => o.id)).toEqual([id]);
    const got = await s.api.GET('/api/v2/sites/{siteName}/orders/{id}', { params: { path: { ...site(), id } } });
    expect(got.data?.lines).toHaveLength(1);

    const paid = await s.api.PATCH('/api/v2/sites/{siteName}/orders/{id}/payment', {
      params: { path: { ...site(), id } },
      body: { paymentStatus: 'paid', processorPaymentId: 'pi_1' },
    });
    expect([paid.response.status, paid.data?.paymentStatus]).toEqual([200, 'paid']);
    // A key's unpaid order held its stock until expiresAt; paid, it no longer expires.
    expect(Date.parse(created.data!.expiresAt!)).toBeGreaterThan(Date.now());
    expect(paid.data?.expiresAt).toBeNull();
    const again = await s.api.PATCH('/api/v2/sites/{siteName}/orders/{id}/payment', {
      params: { path: { ...site(), id } },
      body: { paymentStatus: 'pending' },
    });
    expect([again.response.status, again.error?.code]).toEqual([409, 'transition_forbidden']);

    const shipped = await s.api.PATCH('/api/v2/sites/{siteName}/orders/{id}/fulfillment', {
      params: { path: { ...site(), id } },
      body: { shipment: { carrier: 'DHL', trackingNumber: 'JD01', lines: [{ lineId, quantity: 1 }] } },
    });
    expect([shipped.response.status, shipped.data?.fulfillmentStatus]).toEqual([200, 'partially_fulfilled']);

    const secret = await s.api.POST('/api/v2/sites/{siteName}/orders/fulfillment-secret', { params: { path: site() } });
    expect(secret.data?.secret).toMatch(/^fsec_/);
    const body = {
      id: 'ntf_client_1',
      orderId: id,
      shipment: { carrier: 'DHL', trackingNumber: 'JD02', lines: [{ lineId, quantity: 2 }] },
    };
    const signature = signatureHeader(secret.data!.secret, Math.floor(Date.now() / 1000), JSON.stringify(body));
    const notified = await s.api.POST('/api/v2/sites/{siteName}/orders/fulfillment-notifications', {
      params: { path: site(), header: { 'x-sitebase-signature': signature } },
      body,
    });
    expect([notified.response.status, notified.data?.fulfillmentStatus]).toEqual([200, 'fulfilled']);
    const forgedBody = { ...body, id: 'ntf_client_2' };
    const forged = await s.api.POST('/api/v2/sites/{siteName}/orders/fulfillment-notifications', {
      params: {
        path: site(),
        header: {
          'x-sitebase-signature': signatureHeader(
            'fsec_forged',
            Math.floor(Date.now() / 1000),
            JSON.stringify(forgedBody),
          ),
        },
      },
      body: forgedBody,
    });
    expect([forged.response.status, forged.error?.code]).toEqual([401, 'invalid_signature']);
  });

  it('an order paid through Stripe: its PaymentIntent, the signed success, the refund; a manual site’s 409', async () => {
    const keys = (await connectStripe(s.b)).test!;
    const b = s.contract.as(s.b.key);
    const path = { siteName: s.b.siteName };
    const product = await b.POST('/api/v2/sites/{siteName}/products', {
      params: { path },
      body: { name: 'Print', unitAmount: 2400, currency: 'EUR', quantityAvailable: 1, recurring: null },
    });
    const order = await b.POST('/api/v2/sites/{siteName}/orders', {
      params: { path },
      body: { lines: [{ productId: product.data!.id, quantity: 1 }], customer: { email: 'ada@example.com' } },
    });
    const id = order.data!.id;
    expect([order.data?.paymentProcessor, order.data?.paymentMode]).toEqual(['manual', null]);
    const intent = await b.POST('/api/v2/sites/{siteName}/orders/{id}/payment-intent', {
      params: { path: { ...path, id } },
    });
    expect(intent.response.status).toBe(200);
    expect(intent.data).toEqual(
      expect.objectContaining({ processor: 'stripe', mode: 'test', amount: 2400, currency: 'eur' }),
    );
    const unpaid = await b.POST('/api/v2/sites/{siteName}/orders/{id}/refund', { params: { path: { ...path, id } } });
    expect([unpaid.response.status, unpaid.error?.code]).toEqual([409, 'transition_forbidden']);
    const event = standIn.eventFor('payment_intent.succeeded', intent.data!.paymentIntentId);
    const { payload, header } = signedStripeEvent(event, keys.webhookSecret);
    await request(s.t.server)
      .post(stripeEventsUrl(s.b))
      .set('stripe-signature', header)
      .set('content-type', 'application/json')
      .send(payload)
      .expect(200);
    const refunded = await b.POST('/api/v2/sites/{siteName}/orders/{id}/refund', { params: { path: { ...path, id } } });
    expect([refunded.response.status, refunded.data?.paymentStatus, refunded.data?.paymentProcessor]).toEqual([
      200,
      'refunded',
      'stripe',
    ]);
    const aPath = { siteName: s.a.siteName };
    const mug = await s.api.POST('/api/v2/sites/{siteName}/products', {
      params: { path: aPath },
      body: { name: 'Mug', unitAmount: 1200, currency: 'EUR' },
    });
    const manualOrder = await s.api.POST('/api/v2/sites/{siteName}/orders', {
      params: { path: aPath },
      body: { lines: [{ productId: mug.data!.id, quantity: 1 }], customer: { email: 'grace@example.com' } },
    });
    const manual = await s.api.POST('/api/v2/sites/{siteName}/orders/{id}/payment-intent', {
      params: { path: { ...aPath, id: manualOrder.data!.id } },
    });
    expect([manual.response.status, manual.error?.code]).toEqual([409, 'processor_not_connected']);
    expect(standIn.validatedCount).toBeGreaterThan(0);
    expect(standIn.invalid()).toEqual([]);
  });

  it('called every Orders operation through the client', () => {
    expect(s.contract.uncalled(['Orders'])).toEqual([]);
  });
});
