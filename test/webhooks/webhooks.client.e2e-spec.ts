import { Webhook } from 'standardwebhooks';
import { WebhookEndpointEntity } from '../../src/webhooks/entities/webhook-endpoint.entity';
import { withClient } from '../support/api-client';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

/** Every Webhooks operation through the generated client (docs/openapi.md), against a local receiver. */
describe('generated client: webhooks', () => {
  const s = withClient(2, { env: { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_ALLOW_HTTP: 'true' } });
  const site = () => ({ siteName: s.a.siteName });
  let rx: WebhookReceiver;

  beforeAll(async () => {
    rx = await startWebhookReceiver();
  });
  afterAll(() => rx.close());

  it('create, list, get, update, test, rotate the secret, read and retry deliveries, delete', async () => {
    const created = await s.api.POST('/api/v2/sites/{siteName}/webhooks', {
      params: { path: site() },
      body: { url: rx.url, eventTypes: ['content.published'], description: 'Rebuild' },
    });
    expect(created.response.status).toBe(201);
    const id = created.data!.id;
    const secret = created.data!.secret;
    expect(await s.t.db.getRepository(WebhookEndpointEntity).findOneByOrFail({ id })).toEqual(
      expect.objectContaining({ siteId: s.a.siteId, secret, url: rx.url }),
    );

    const list = await s.api.GET('/api/v2/sites/{siteName}/webhooks', {
      params: { path: site(), query: { status: 'enabled', limit: 10 } },
    });
    expect(list.data!.data.map((e) => e.id)).toEqual([id]);
    const got = await s.api.GET('/api/v2/sites/{siteName}/webhooks/{id}', { params: { path: { ...site(), id } } });
    expect([got.response.status, got.data?.description]).toEqual([200, 'Rebuild']);
    const updated = await s.api.PATCH('/api/v2/sites/{siteName}/webhooks/{id}', {
      params: { path: { ...site(), id } },
      body: { eventTypes: ['content.*'], headers: { 'X-Team': 'web' } },
    });
    expect([updated.response.status, updated.data?.eventTypes, updated.data?.headers]).toEqual([
      200,
      ['content.*'],
      { 'X-Team': '********' },
    ]);

    const tested = await s.api.POST('/api/v2/sites/{siteName}/webhooks/{id}/test', {
      params: { path: { ...site(), id } },
    });
    expect(tested.data).toEqual(
      expect.objectContaining({ ok: true, statusCode: 200, responseExcerpt: 'ok', errorKind: null, error: null }),
    );
    const [received] = await rx.waitFor(1);
    expect(new Webhook(secret).verify(received.body, received.headers as Record<string, string>)).toEqual(
      expect.objectContaining({ type: 'webhook.test', data: expect.objectContaining({ endpointId: id }) }),
    );
    expect(received.headers['x-team']).toBe('web');

    const rotated = await s.api.POST('/api/v2/sites/{siteName}/webhooks/{id}/rotate-secret', {
      params: { path: { ...site(), id } },
    });
    expect([rotated.response.status, rotated.data!.secret === secret]).toEqual([200, false]);

    const deliveries = await s.api.GET('/api/v2/sites/{siteName}/webhooks/{id}/deliveries', {
      params: { path: { ...site(), id }, query: { status: 'succeeded' } },
    });
    expect(deliveries.data!.data).toEqual([
      expect.objectContaining({ id: tested.data!.deliveryId, eventType: 'webhook.test', status: 'succeeded' }),
    ]);
    const delivery = await s.api.GET('/api/v2/sites/{siteName}/webhooks/{id}/deliveries/{deliveryId}', {
      params: { path: { ...site(), id, deliveryId: tested.data!.deliveryId } },
    });
    expect(delivery.data!.payload).toEqual(expect.objectContaining({ type: 'webhook.test' }));
    expect(delivery.data!.attemptLog).toEqual([expect.objectContaining({ statusCode: 200, responseExcerpt: 'ok' })]);

    const retried = await s.api.POST('/api/v2/sites/{siteName}/webhooks/{id}/deliveries/{deliveryId}/retry', {
      params: { path: { ...site(), id, deliveryId: tested.data!.deliveryId } },
    });
    expect([retried.response.status, retried.data?.status, retried.data?.attempts]).toEqual([202, 'pending', 0]);
    const [, again] = await rx.waitFor(2);
    expect(again.headers['webhook-id']).toBe(received.headers['webhook-id']);
    // Both secrets sign during the grace period after the rotation.
    expect(String(again.headers['webhook-signature']).split(' ')).toHaveLength(2);
    new Webhook(rotated.data!.secret).verify(again.body, again.headers as Record<string, string>);

    const deleted = await s.api.DELETE('/api/v2/sites/{siteName}/webhooks/{id}', {
      params: { path: { ...site(), id } },
    });
    expect(deleted.response.status).toBe(204);
    const gone = await s.api.GET('/api/v2/sites/{siteName}/webhooks/{id}', { params: { path: { ...site(), id } } });
    expect([gone.response.status, gone.error?.code]).toEqual([404, 'not_found']);
    const bad = await s.api.POST('/api/v2/sites/{siteName}/webhooks', {
      params: { path: site() },
      body: { url: 'ftp://example.com/x' },
    });
    expect([bad.response.status, bad.error?.code]).toEqual([400, 'validation_failed']);
  });

  it('called every Webhooks operation through the client', () => {
    expect(s.contract.uncalled(['Webhooks'])).toEqual([]);
  });
});
