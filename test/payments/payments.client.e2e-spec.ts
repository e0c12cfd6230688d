import { withClient } from '../support/api-client';
import { signedStripeEvent, stripeKeys } from '../support/stripe-connect';

/** Every Payments operation through the generated client (docs/openapi.md). */
describe('generated client: payments', () => {
  const s = withClient(1);
  const site = () => ({ siteName: s.a.siteName });

  it('an operator connects a site, reads the connection, Stripe posts an event, the operator disconnects', async () => {
    const keys = stripeKeys('test');
    const put = await s.api.PUT('/api/v2/sites/{siteName}/payments/stripe', {
      params: { path: site() },
      body: { mode: 'test', test: keys, live: null },
    });
    expect([put.response.status, put.data?.processor, put.data?.test?.keyHint]).toEqual([
      200,
      'stripe',
      `rk_test_…${keys.secretKey.slice(-4)}`,
    ]);
    const got = await s.api.GET('/api/v2/sites/{siteName}/payments/stripe', { params: { path: site() } });
    expect([got.response.status, got.data?.mode, got.data?.live]).toEqual([200, 'test', null]);

    const event = {
      id: 'evt_client1',
      object: 'event',
      type: 'customer.created',
      livemode: false,
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: 'cus_client1', object: 'customer' } },
    };
    const signed = signedStripeEvent(event, keys.webhookSecret);
    const posted = await s.contract.as().POST('/api/v2/sites/{siteName}/payments/stripe/events', {
      params: { path: site(), header: { 'stripe-signature': signed.header } },
      body: event,
    });
    expect([posted.response.status, posted.data]).toEqual([
      200,
      { id: 'evt_client1', type: 'customer.created', outcome: 'ignored', replayed: false },
    ]);

    const deleted = await s.api.DELETE('/api/v2/sites/{siteName}/payments/stripe', { params: { path: site() } });
    expect(deleted.response.status).toBe(204);
  });

  it('leaves no Payments operation uncalled', () => {
    expect(s.contract.uncalled(['Admin: payments'])).toEqual([]);
  });
});
