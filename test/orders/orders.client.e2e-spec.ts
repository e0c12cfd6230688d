import { OrderEntity } from '../../src/orders/entities/order.entity';
import { signatureHeader } from '../../src/orders/fulfillment-signature';
import { withClient } from '../support/api-client';

/** Every Orders operation through the generated client (docs/openapi.md). */
describe('generated client: orders', () => {
  const s = withClient(2);
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

  it('called every Orders operation through the client', () => {
    expect(s.contract.uncalled(['Orders'])).toEqual([]);
  });
});
