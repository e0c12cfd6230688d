import { Webhook } from 'standardwebhooks';
import { recordEvent } from '../../src/common/outbox/record-event';
import { CONTENT_EVENTS } from '../../src/content/content.events';
import { webhookIdOf } from '../../src/webhooks/dto/webhook-delivery.dto';
import { WebhookAttemptEntity } from '../../src/webhooks/entities/webhook-attempt.entity';
import { WebhookDeliveryEntity } from '../../src/webhooks/entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from '../../src/webhooks/entities/webhook-endpoint.entity';
import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { eventsOf } from '../support/events';
import { contentUrl } from '../support/factories';
import { ISO } from '../support/matchers';
import { createTenant, Tenant } from '../support/tenant';
import { ReceivedWebhook, startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

/** What a receiver does with a request: verify it as the Standard Webhooks package does. */
function verify(
  secret: string,
  r: ReceivedWebhook,
): { type: string; timestamp: string; data: Record<string, unknown> } {
  return new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as never;
}

const WEBHOOK_ENV = {
  WEBHOOKS_ALLOW_PRIVATE: 'true',
  WEBHOOKS_ALLOW_HTTP: 'true',
  WEBHOOK_RETRY_SCHEDULE: '1,1,1,1',
  WEBHOOK_TIMEOUT_MS: '2000',
};

/**
 * Deliveries to a local HTTP receiver, on a database of its own (docs/testing.md: another
 * file's endpoints and jobs must not share this app's workers).
 */
describe('webhook delivery', () => {
  let t: TestApp;
  let a: Tenant;
  let rx: WebhookReceiver;
  const hooks = (x: Tenant, rest = '') => `/api/v2/sites/${x.siteName}/webhooks${rest}`;
  const createEndpoint = async (x: Tenant, body: Record<string, unknown>) =>
    (await x.api.post(hooks(x)).send(body).expect(201)).body as { id: number; secret: string };
  const publish = (x: Tenant, title: string) =>
    x.api.post(contentUrl(x)).send({ title, status: 'published' }).expect(201);
  const deliveries = (endpointId: number) =>
    t.db.getRepository(WebhookDeliveryEntity).find({ where: { endpointId }, order: { id: 'ASC' } });

  beforeAll(async () => {
    t = await startApp({ databaseUrl: await createFreshDatabase('webhooks'), env: WEBHOOK_ENV });
    a = await createTenant(t);
  });
  beforeEach(async () => {
    rx = await startWebhookReceiver();
  });
  afterEach(() => rx.close());
  afterAll(() => t.close());

  it('delivers an event signed per Standard Webhooks: the package verifies it with the secret', async () => {
    const ep = await createEndpoint(a, {
      url: rx.url,
      eventTypes: ['content.created'],
      headers: { Authorization: 'Bearer receiver-token' },
    });
    expect(ep.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const created = await publish(a, 'Signed hello');
    const [got] = await rx.waitFor(1);
    const envelope = verify(ep.secret, got);
    expect(envelope).toEqual({
      type: 'content.created',
      timestamp: ISO,
      data: { id: created.body.id, type: 'post', slug: 'signed-hello', status: 'published', version: 1 },
    });
    expect(got.headers).toEqual(
      expect.objectContaining({
        'content-type': 'application/json',
        'user-agent': 'Sitebase-Webhooks/1.0',
        authorization: 'Bearer receiver-token',
        'webhook-id': expect.stringMatching(/^msg_\d+$/),
        'webhook-timestamp': expect.stringMatching(/^\d{10}$/),
      }),
    );
    // Only the subscribed type: content.published of the same create was not sent.
    expect(rx.requests.map((r) => JSON.parse(r.body).type)).toEqual(['content.created']);
    const [row] = await eventually(async () => {
      const rows = await deliveries(ep.id);
      return rows[0]?.status === 'succeeded' ? rows : undefined;
    });
    expect(got.headers['webhook-id']).toBe(`msg_${row.id}`);
    expect(row).toEqual(expect.objectContaining({ eventType: 'content.created', attempts: 1, lastStatusCode: 200 }));
    const attempts = await t.db.getRepository(WebhookAttemptEntity).findBy({ deliveryId: row.id });
    expect(attempts).toEqual([
      expect.objectContaining({
        statusCode: 200,
        responseExcerpt: 'ok',
        errorKind: null,
        durationMs: expect.any(Number),
      }),
    ]);
    // A forged body does not verify.
    expect(() => verify(ep.secret, { ...got, body: got.body.replace('signed-hello', 'forged-hello') })).toThrow();
  });

  it('a receiver that fails three times then recovers gets the event, with the same webhook-id every time', async () => {
    rx.answer((n) => (n <= 3 ? { status: 503, body: 'down for maintenance' } : { status: 204 }));
    const ep = await createEndpoint(a, { url: rx.url, eventTypes: ['content.created'] });
    await publish(a, 'Eventually there');
    await rx.waitFor(1, undefined, 30000);
    expect(rx.requests).toHaveLength(4);
    expect(new Set(rx.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(rx.requests.map((r) => r.status)).toEqual([503, 503, 503, 204]);
    for (const r of rx.requests) verify(ep.secret, r);
    const [row] = await eventually(async () => {
      const rows = await deliveries(ep.id);
      return rows[0]?.status === 'succeeded' ? rows : undefined;
    });
    const attempts = await t.db.getRepository(WebhookAttemptEntity).find({
      where: { deliveryId: row.id },
      order: { id: 'ASC' },
    });
    expect(attempts.map((x) => [x.statusCode, x.errorKind, x.responseExcerpt])).toEqual([
      [503, 'http_status', 'down for maintenance'],
      [503, 'http_status', 'down for maintenance'],
      [503, 'http_status', 'down for maintenance'],
      [204, null, ''],
    ]);
    const endpoint = await t.db.getRepository(WebhookEndpointEntity).findOneByOrFail({ id: ep.id });
    expect(endpoint).toEqual(
      expect.objectContaining({ status: 'enabled', failingSince: null, consecutiveFailures: 0, retryAt: null }),
    );
  }, 40000);

  it('keeps the order of an endpoint’s events', async () => {
    const ep = await createEndpoint(a, { url: rx.url, eventTypes: ['content.created'] });
    for (let i = 0; i < 8; i++) await publish(a, `In order ${i}`);
    const got = await rx.waitFor(8);
    expect(got.map((r) => (verify(ep.secret, r).data as { slug: string }).slug)).toEqual(
      Array.from({ length: 8 }, (_, i) => `in-order-${i}`),
    );
  });

  it('a disabled endpoint gets nothing; enabled again, it gets what was waiting to be retried', async () => {
    const other = await startWebhookReceiver();
    try {
      // A second endpoint, enabled, shows the events were fanned out meanwhile.
      await createEndpoint(a, { url: other.url, eventTypes: ['content.created'] });
      const off = await createEndpoint(a, { url: rx.url, eventTypes: ['content.created'], status: 'disabled' });
      await publish(a, 'While created disabled');
      await other.waitFor(1);
      await new Promise((r) => setTimeout(r, 1000));
      expect(rx.requests).toEqual([]);
      expect(await deliveries(off.id)).toEqual([]);
      await a.api.delete(hooks(a, `/${off.id}`)).expect(204);

      // An enabled endpoint whose first answer fails, and which is disabled while it is being answered.
      rx.answer((n) => (n === 1 ? { status: 503, delayMs: 800 } : { status: 200 }));
      const ep = await createEndpoint(a, { url: rx.url, eventTypes: ['content.created'] });
      await publish(a, 'Waiting for a retry');
      await eventually(async () => (rx.requests.length === 1 ? true : undefined));
      const disabled = await a.api
        .patch(hooks(a, `/${ep.id}`))
        .send({ status: 'disabled' })
        .expect(200);
      expect(disabled.body).toEqual(
        expect.objectContaining({ status: 'disabled', disabledReason: 'manual', disabledAt: ISO }),
      );
      await publish(a, 'Not for a disabled endpoint');
      await other.waitFor(3);
      await new Promise((r) => setTimeout(r, 2000));
      expect(rx.requests).toHaveLength(1);
      expect((await deliveries(ep.id)).map((d) => [d.status, d.attempts])).toEqual([['pending', 1]]);

      const res = await a.api
        .patch(hooks(a, `/${ep.id}`))
        .send({ status: 'enabled' })
        .expect(200);
      expect(res.body).toEqual(expect.objectContaining({ status: 'enabled', disabledReason: null, disabledAt: null }));
      const [got] = await rx.waitFor(1);
      expect(got.headers['webhook-id']).toBe(rx.requests[0].headers['webhook-id']);
      expect(verify(ep.secret, got).data).toEqual(expect.objectContaining({ slug: 'waiting-for-a-retry' }));
      await new Promise((r) => setTimeout(r, 500));
      expect(rx.requests).toHaveLength(2);
    } finally {
      await other.close();
    }
  });

  it('a slow receiver times out, and the delivery is retried', async () => {
    rx.answer((n) => (n === 1 ? { status: 200, delayMs: 3000 } : { status: 200 }));
    const ep = await createEndpoint(a, { url: rx.url, eventTypes: ['content.created'] });
    await publish(a, 'Slow to answer');
    const [row] = await eventually(async () => {
      const rows = await deliveries(ep.id);
      return rows[0]?.status === 'succeeded' ? rows : undefined;
    }, 30000);
    expect(rx.requests.length).toBeGreaterThanOrEqual(2);
    const attempts = await t.db.getRepository(WebhookAttemptEntity).find({
      where: { deliveryId: row.id },
      order: { id: 'ASC' },
    });
    expect(attempts[0]).toEqual(expect.objectContaining({ errorKind: 'timeout', statusCode: null }));
    expect(attempts[0].durationMs).toBeGreaterThanOrEqual(1900);
    expect(attempts[attempts.length - 1]).toEqual(expect.objectContaining({ statusCode: 200, errorKind: null }));
  }, 40000);

  it('a redirect is not followed: the attempt fails as a redirect', async () => {
    rx.answer(() => ({ status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data' } }));
    const ep = await createEndpoint(a, { url: rx.url, eventTypes: ['content.created'] });
    const res = await a.api.post(hooks(a, `/${ep.id}/test`)).expect(200);
    expect(res.body).toEqual(
      expect.objectContaining({
        ok: false,
        statusCode: 302,
        errorKind: 'redirect',
        error: expect.stringMatching(/302/),
      }),
    );
    expect(rx.requests).toHaveLength(1);
  });

  it('a transaction that rolls back emits nothing', async () => {
    const ep = await createEndpoint(a, { url: rx.url, eventTypes: ['content.*'] });
    await expect(
      t.db.transaction(async (em) => {
        await recordEvent(em, { id: a.siteId, accountId: a.accountId }, CONTENT_EVENTS.deleted, {
          id: 999999,
          type: 'post',
          slug: 'never-deleted',
        });
        throw new Error('the change fails after recording its event');
      }),
    ).rejects.toThrow('the change fails');
    // A committed event after it arrives; the rolled-back one never does.
    await publish(a, 'After the rollback');
    await rx.waitFor(2);
    await new Promise((r) => setTimeout(r, 800));
    expect(rx.requests.map((r) => JSON.parse(r.body).type)).toEqual(['content.created', 'content.published']);
    expect((await deliveries(ep.id)).map((d) => d.eventType)).toEqual(['content.created', 'content.published']);
  });

  it('rotating the secret keeps deliveries verifiable with the old secret and the new one', async () => {
    const ep = await createEndpoint(a, { url: rx.url, eventTypes: ['content.created'] });
    const rotated = await a.api.post(hooks(a, `/${ep.id}/rotate-secret`)).expect(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(ep.secret);
    expect(rotated.body.previousSecretExpiresAt).toEqual(ISO);
    await publish(a, 'After rotation');
    const [got] = await rx.waitFor(1);
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(ep.secret, got).type).toBe('content.created');
    expect(verify(rotated.body.secret as string, got).type).toBe('content.created');
    // Once the grace period is over, only the new secret signs.
    await t.db.query(`UPDATE webhook_endpoints SET previous_secret_expires_at = now() WHERE id = $1`, [ep.id]);
    await publish(a, 'After the grace period');
    const [, later] = await rx.waitFor(2);
    expect(String(later.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() => verify(ep.secret, later)).toThrow();
    expect(verify(rotated.body.secret as string, later).type).toBe('content.created');
  });

  it('an account-level event reaches the endpoints of every site of the account', async () => {
    const ep = await createEndpoint(a, { url: rx.url, eventTypes: ['api_key.created'] });
    const key = await a.api.post('/api/v2/api-keys').send({ name: 'for the hook' }).expect(201);
    // This endpoint's delivery: a late one of an earlier test's endpoint may reach the receiver first.
    const got = await eventually(async () =>
      rx.requests.find((r) => {
        try {
          verify(ep.secret, r);
          return true;
        } catch {
          return false;
        }
      }),
    );
    expect(verify(ep.secret, got)).toEqual(
      expect.objectContaining({ type: 'api_key.created', data: expect.objectContaining({ id: key.body.id }) }),
    );
  });

  it('each event is delivered once per endpoint even if the outbox relays it twice', async () => {
    const ep = await createEndpoint(a, { url: rx.url, eventTypes: ['content.created'] });
    await publish(a, 'Relayed twice');
    await rx.waitFor(1);
    // Mark the event undispatched, as a relay that crashed before its commit would leave it.
    await t.db.query(
      `UPDATE outbox_events SET dispatched_at = NULL WHERE id = (
         SELECT event_id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id DESC LIMIT 1)`,
      [ep.id],
    );
    await eventually(async () => {
      const [row] = await t.db.query<Array<{ pending: number }>>(
        `SELECT count(*)::int AS pending FROM outbox_events WHERE dispatched_at IS NULL AND site_id = $1`,
        [a.siteId],
      );
      return row.pending === 0 ? true : undefined;
    });
    await new Promise((r) => setTimeout(r, 1000));
    // One delivery, one message: a receiver may see that message again (a retry after a timeout on a
    // loaded machine carries the same webhook-id, as Standard Webhooks says), never a second one.
    expect(await deliveries(ep.id)).toHaveLength(1);
    expect(new Set(rx.requests.map((r) => r.headers['webhook-id']))).toEqual(
      new Set([webhookIdOf((await deliveries(ep.id))[0].id)]),
    );
  });
});

describe('webhook delivery: giving up and disabling', () => {
  let t: TestApp;
  let a: Tenant;
  let rx: WebhookReceiver;
  let watcher: WebhookReceiver;

  beforeAll(async () => {
    t = await startApp({
      databaseUrl: await createFreshDatabase('webhooksfail'),
      env: { ...WEBHOOK_ENV, WEBHOOK_RETRY_SCHEDULE: '0,0', WEBHOOK_DISABLE_AFTER_SECONDS: '2' },
    });
    a = await createTenant(t);
    rx = await startWebhookReceiver();
    watcher = await startWebhookReceiver();
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
    await watcher.close();
  });

  it('a delivery is given up after its last retry; an endpoint failing too long is disabled, with an event', async () => {
    rx.answer(() => ({ status: 500, body: 'broken' }));
    const ep = (
      await a.api
        .post(`/api/v2/sites/${a.siteName}/webhooks`)
        .send({ url: rx.url, eventTypes: ['content.created'] })
        .expect(201)
    ).body as { id: number };
    const watch = (
      await a.api
        .post(`/api/v2/sites/${a.siteName}/webhooks`)
        .send({ url: watcher.url, eventTypes: ['webhook.endpoint_disabled'] })
        .expect(201)
    ).body as { id: number; secret: string };
    await a.api.post(contentUrl(a)).send({ title: 'Never received' }).expect(201);
    const failed = await eventually(async () => {
      const [row] = await t.db.getRepository(WebhookDeliveryEntity).findBy({ endpointId: ep.id });
      return row?.status === 'failed' ? row : undefined;
    }, 20000);
    // The first attempt and the schedule's two retries.
    expect(failed).toEqual(
      expect.objectContaining({ attempts: 3, lastStatusCode: 500, lastErrorKind: 'http_status', nextAttemptAt: null }),
    );
    // Another event, two seconds after the failures began: the endpoint is disabled.
    await new Promise((r) => setTimeout(r, 2100));
    await a.api.post(contentUrl(a)).send({ title: 'The last straw' }).expect(201);
    const endpoint = await eventually(async () => {
      const row = await t.db.getRepository(WebhookEndpointEntity).findOneByOrFail({ id: ep.id });
      return row.status === 'disabled' ? row : undefined;
    }, 20000);
    expect(endpoint).toEqual(
      expect.objectContaining({
        disabledReason: 'failing',
        disabledAt: expect.any(Date),
        failingSince: expect.any(Date),
      }),
    );
    const events = (await eventsOf(t, a)).filter((e) => e.name === 'webhook.endpoint_disabled');
    expect(events.map((e) => e.payload)).toEqual([
      { id: ep.id, url: rx.url, failingSince: endpoint.failingSince!.toISOString(), lastError: 'answered 500' },
    ]);
    // The site's other endpoint hears of it.
    const [got] = await watcher.waitFor(1);
    expect(new Webhook(watch.secret).verify(got.body, got.headers as Record<string, string>)).toEqual(
      expect.objectContaining({ type: 'webhook.endpoint_disabled', data: expect.objectContaining({ id: ep.id }) }),
    );
    const seen = rx.requests.length;
    await a.api.post(contentUrl(a)).send({ title: 'Not for a disabled endpoint' }).expect(201);
    await new Promise((r) => setTimeout(r, 1500));
    expect(rx.requests).toHaveLength(seen);
    const res = await a.api.get(`/api/v2/sites/${a.siteName}/webhooks/${ep.id}`).expect(200);
    expect(res.body).toEqual(expect.objectContaining({ status: 'disabled', disabledReason: 'failing' }));
  }, 40000);
});
