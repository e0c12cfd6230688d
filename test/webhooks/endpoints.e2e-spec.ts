import request from 'supertest';
import { WebhookDeliveryEntity } from '../../src/webhooks/entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from '../../src/webhooks/entities/webhook-endpoint.entity';
import { snapshotDatabase } from '../support/db-snapshot';
import { ISO, NULL_OR_ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { startWebhookReceiver } from '../support/webhook-receiver';
import { Tenant, withTenants } from '../support/tenant';

/** A public address written as an IP literal: creating an endpoint needs no DNS here. */
const PUBLIC_URL = 'https://93.184.215.14/hooks';

describe('/api/v2/sites/:siteName/webhooks (private targets refused, as by default)', () => {
  const ctx = withTenants(2);
  let a: Tenant;
  let b: Tenant;
  const hooks = (x: Tenant, rest = '') => `/api/v2/sites/${x.siteName}/webhooks${rest}`;
  const rows = () => ctx.t.db.getRepository(WebhookEndpointEntity);

  beforeAll(() => {
    [a, b] = ctx.tenants;
  });

  describe('create', () => {
    it('creates an endpoint: 201, Location, the secret once, the row', async () => {
      const res = await a.api
        .post(hooks(a))
        .send({
          url: PUBLIC_URL,
          description: 'Rebuild the site',
          eventTypes: ['content.published', 'media.*'],
          headers: { Authorization: 'Bearer t0ken', 'X-Team': 'web' },
        })
        .expect(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        url: PUBLIC_URL,
        description: 'Rebuild the site',
        eventTypes: ['content.published', 'media.*'],
        // Write-only values (docs/webhooks.md): the names, each value masked.
        headers: { Authorization: '********', 'X-Team': '********' },
        status: 'enabled',
        disabledReason: null,
        disabledAt: null,
        failingSince: null,
        lastSuccessAt: null,
        lastFailureAt: null,
        previousSecretExpiresAt: null,
        createdAt: ISO,
        updatedAt: ISO,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      });
      expect(res.headers.location).toMatch(new RegExp(`/api/v2/sites/${a.siteName}/webhooks/${res.body.id}$`));
      const row = await rows().findOneByOrFail({ id: res.body.id });
      expect(row).toEqual(
        expect.objectContaining({
          siteId: a.siteId,
          secret: res.body.secret,
          status: 'enabled',
          headers: { Authorization: 'Bearer t0ken', 'X-Team': 'web' },
        }),
      );
      // The secret is shown on creation only.
      const got = await a.api.get(hooks(a, `/${res.body.id}`)).expect(200);
      expect(got.body).not.toHaveProperty('secret');
      expect(JSON.stringify(got.body)).not.toContain(res.body.secret);
    });

    it('subscribes to every event when eventTypes is left out', async () => {
      const res = await a.api.post(hooks(a)).send({ url: PUBLIC_URL }).expect(201);
      expect(res.body).toEqual(expect.objectContaining({ eventTypes: ['*'], description: '', headers: {} }));
    });

    it.each([
      ['a loopback address', 'https://127.0.0.1/hooks'],
      ['a host that resolves to 127.0.0.1', 'https://localhost/hooks'],
      ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data'],
      ['an IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/hooks'],
      ['an IPv4-mapped IPv6 in hex', 'https://[::ffff:7f00:1]/hooks'],
      ['the IPv6 loopback', 'https://[::1]/hooks'],
      ['a private network', 'https://10.1.2.3/hooks'],
      ['another private network', 'https://192.168.0.10/hooks'],
      ['a CGNAT address', 'https://100.64.0.7/hooks'],
      ['a unique-local IPv6 (AWS metadata)', 'https://[fd00:ec2::254]/hooks'],
      ['a link-local IPv6', 'https://[fe80::1]/hooks'],
      ['the unspecified address', 'https://0.0.0.0/hooks'],
      ['127.0.0.1 written as a number', 'https://2130706433/hooks'],
      ['127.0.0.1 written in hex', 'https://0x7f.1/hooks'],
      ['a NAT64 address', 'https://[64:ff9b::7f00:1]/hooks'],
    ])('refuses %s: 400 naming url, nothing stored', async (_label, url) => {
      const before = await rows().countBy({ siteId: a.siteId });
      const res = await a.api.post(hooks(a)).send({ url });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([{ path: 'url', message: expect.stringMatching(/^must be a public address/) }]);
      expect(await rows().countBy({ siteId: a.siteId })).toBe(before);
    });

    it.each([
      ['credentials in the URL', 'https://user:secret@93.184.215.14/hooks', /credentials/],
      ['http (not allowed on this server)', 'http://93.184.215.14/hooks', /https/],
      ['another scheme', 'ftp://93.184.215.14/hooks', /https/],
      ['a fragment', 'https://93.184.215.14/hooks#part', /fragment/],
      ['not a URL', 'hooks.example.com/x', /absolute URL/],
      ['a host that does not resolve', 'https://no-such-host.invalid/hooks', /resolves/],
    ])('refuses %s', async (_label, url, message) => {
      const res = await a.api.post(hooks(a)).send({ url });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([{ path: 'url', message: expect.stringMatching(message) }]);
    });

    it.each([
      [
        'an unknown event type',
        { eventTypes: ['content.exploded'] },
        'eventTypes',
        /content.exploded is not an event type/,
      ],
      ['a prefix of nothing', { eventTypes: ['nothing.*'] }, 'eventTypes', /matches no event type/],
      ['an empty list', { eventTypes: [] }, 'eventTypes', /at least 1/],
      ['a hop-by-hop header', { headers: { Connection: 'close' } }, 'headers', /hop-by-hop/],
      ['a Host header', { headers: { Host: 'evil.example' } }, 'headers', /cannot be set/],
      ['a signature header', { headers: { 'webhook-signature': 'v1,forged' } }, 'headers', /cannot be set/],
      ['a Content-Type header', { headers: { 'Content-Type': 'text/plain' } }, 'headers', /cannot be set/],
      ['a line break in a value', { headers: { 'X-A': 'a\r\nX-B: b' } }, 'headers', /one line/],
      ['a bad header name', { headers: { 'X A': '1' } }, 'headers', /not a header name/],
      ['a value that is not a string', { headers: { 'X-A': 1 } }, 'headers', /must be a string/],
      [
        'too many headers',
        { headers: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v'])) },
        'headers',
        /at most 20/,
      ],
      ['an unknown status', { status: 'paused' }, 'status', /must be one of/],
    ])('refuses %s: 400 naming the field', async (_label, extra, path, message) => {
      const res = await a.api.post(hooks(a)).send({ url: PUBLIC_URL, ...extra });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([{ path, message: expect.stringMatching(message) }]);
    });

    it('a site has at most 50 endpoints: 409 limit_reached', async () => {
      const { siteName } = b;
      const existing = await rows().countBy({ siteId: b.siteId });
      for (let i = existing; i < 50; i++) await b.api.post(hooks(b)).send({ url: PUBLIC_URL }).expect(201);
      expectProblem(
        await b.api.post(`/api/v2/sites/${siteName}/webhooks`).send({ url: PUBLIC_URL }),
        409,
        'limit_reached',
      );
      expect(await rows().countBy({ siteId: b.siteId })).toBe(50);
      await ctx.t.db.query('DELETE FROM webhook_endpoints WHERE site_id = $1', [b.siteId]);
    });

    it('needs a key: 401, and another account’s site is a 404', async () => {
      expectProblem(await request(ctx.t.server).post(hooks(a)).send({ url: PUBLIC_URL }), 401, 'missing_credential');
      expectProblem(await b.api.post(hooks(a)).send({ url: PUBLIC_URL }), 404, 'site_not_found');
    });
  });

  describe('read, update, delete', () => {
    let id: number;
    beforeAll(async () => {
      id = (
        await a.api
          .post(hooks(a))
          .send({ url: PUBLIC_URL, eventTypes: ['content.*'] })
          .expect(201)
      ).body.id;
    });

    it('lists newest first with keyset pagination and a status filter', async () => {
      const off = (await a.api.post(hooks(a)).send({ url: PUBLIC_URL, status: 'disabled' }).expect(201)).body.id;
      const first = await a.api.get(`${hooks(a)}?limit=1`).expect(200);
      expect(first.body.data.map((e: { id: number }) => e.id)).toEqual([off]);
      expect(first.body.pagination).toEqual({ limit: 1, nextCursor: expect.any(String) });
      const second = await a.api.get(`${hooks(a)}?limit=1&cursor=${first.body.pagination.nextCursor}`).expect(200);
      expect(second.body.data[0].id).toBeLessThan(off);
      const disabled = await a.api.get(`${hooks(a)}?status=disabled`).expect(200);
      expect(disabled.body.data.map((e: { id: number }) => e.id)).toEqual([off]);
      expect(disabled.body.data[0]).toEqual(expect.objectContaining({ disabledReason: 'manual', disabledAt: ISO }));
      expectProblem(await a.api.get(`${hooks(a)}?status=paused`), 400, 'validation_failed');
      expectProblem(await a.api.get(`${hooks(a)}?cursor=forged`), 400, 'invalid_cursor');
      // Another site lists none of them.
      const other = await b.api.get(hooks(b)).expect(200);
      expect(other.body.data.map((e: { id: number }) => e.id)).not.toContain(off);
    });

    it('updates the fields it is given; the rest stay', async () => {
      const res = await a.api
        .patch(hooks(a, `/${id}`))
        .send({ description: 'Search index', headers: { 'X-Index': 'main' } })
        .expect(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          id,
          url: PUBLIC_URL,
          description: 'Search index',
          eventTypes: ['content.*'],
          headers: { 'X-Index': '********' },
          status: 'enabled',
          lastSuccessAt: NULL_OR_ISO,
        }),
      );
      expect(res.body).not.toHaveProperty('secret');
      expect(await rows().findOneByOrFail({ id })).toEqual(
        expect.objectContaining({ description: 'Search index', headers: { 'X-Index': 'main' } }),
      );
    });

    it('refuses a bad update and changes nothing', async () => {
      const before = await snapshotDatabase(ctx.t.db);
      expectProblem(
        await a.api.patch(hooks(a, `/${id}`)).send({ url: 'https://127.0.0.1/x' }),
        400,
        'validation_failed',
      );
      expectProblem(await a.api.patch(hooks(a, `/${id}`)).send({ url: null }), 400, 'validation_failed');
      expectProblem(await a.api.patch(hooks(a, `/${id}`)).send({ eventTypes: ['no.such'] }), 400, 'validation_failed');
      expectProblem(await a.api.patch(hooks(a, `/${id}`)).send({ secret: 'whsec_mine' }), 400, 'validation_failed');
      expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
    });

    it('rotates the secret (admin): a new one, the previous one signing until its expiry', async () => {
      const before = await rows().findOneByOrFail({ id });
      const res = await a.api.post(hooks(a, `/${id}/rotate-secret`)).expect(200);
      expect(res.body).toEqual(
        expect.objectContaining({ id, secret: expect.stringMatching(/^whsec_/), previousSecretExpiresAt: ISO }),
      );
      expect(res.body.secret).not.toBe(before.secret);
      const after = await rows().findOneByOrFail({ id });
      expect(after).toEqual(expect.objectContaining({ secret: res.body.secret, previousSecret: before.secret }));
      const hours = (after.previousSecretExpiresAt!.getTime() - Date.now()) / 3600_000;
      expect(hours).toBeGreaterThan(23.9);
      expect(hours).toBeLessThanOrEqual(24);
    });

    it("another site's endpoint is a 404 on every route, and nothing changes", async () => {
      const before = await snapshotDatabase(ctx.t.db);
      expectProblem(await b.api.get(hooks(b, `/${id}`)), 404, 'not_found');
      expectProblem(await b.api.patch(hooks(b, `/${id}`)).send({ description: 'x' }), 404, 'not_found');
      expectProblem(await b.api.delete(hooks(b, `/${id}`)), 404, 'not_found');
      expectProblem(await b.api.post(hooks(b, `/${id}/test`)), 404, 'not_found');
      expectProblem(await b.api.post(hooks(b, `/${id}/rotate-secret`)), 404, 'not_found');
      expectProblem(await b.api.get(hooks(b, `/${id}/deliveries`)), 404, 'not_found');
      expectProblem(await b.api.get(hooks(b, `/${id}/deliveries/1`)), 404, 'not_found');
      expectProblem(await b.api.post(hooks(b, `/${id}/deliveries/1/retry`)), 404, 'not_found');
      expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
    });

    it('a private address that a stored URL came to resolve to is refused at send time too', async () => {
      // As if DNS had changed since the check at creation: the row is changed behind the API's back.
      const rx = await startWebhookReceiver();
      try {
        await rows().update({ id }, { url: rx.url });
        const res = await a.api.post(hooks(a, `/${id}/test`)).expect(200);
        expect(res.body).toEqual({
          ok: false,
          deliveryId: expect.any(Number),
          webhookId: `msg_${res.body.deliveryId}`,
          statusCode: null,
          durationMs: expect.any(Number),
          responseExcerpt: '',
          errorKind: 'blocked_address',
          error: expect.stringMatching(/127\.0\.0\.1 \(loopback\)/),
        });
        expect(rx.requests).toEqual([]);
        const delivery = await ctx.t.db
          .getRepository(WebhookDeliveryEntity)
          .findOneByOrFail({ id: res.body.deliveryId });
        expect(delivery).toEqual(
          expect.objectContaining({ status: 'failed', eventType: 'webhook.test', lastErrorKind: 'blocked_address' }),
        );
      } finally {
        await rx.close();
        await rows().update({ id }, { url: PUBLIC_URL });
      }
    });

    it('deletes an endpoint with its deliveries', async () => {
      const gone = (await a.api.post(hooks(a)).send({ url: PUBLIC_URL }).expect(201)).body.id as number;
      await ctx.t.db.query(
        `INSERT INTO webhook_deliveries (site_id, endpoint_id, event_type, payload, status) VALUES ($1, $2, 'webhook.test', '{}', 'failed')`,
        [a.siteId, gone],
      );
      await a.api.delete(hooks(a, `/${gone}`)).expect(204);
      expect(await rows().findOneBy({ id: gone })).toBeNull();
      expect(await ctx.t.db.getRepository(WebhookDeliveryEntity).countBy({ endpointId: gone })).toBe(0);
      expectProblem(await a.api.get(hooks(a, `/${gone}`)), 404, 'not_found');
    });
  });
});
