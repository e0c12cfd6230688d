import { randomInt } from 'node:crypto';
import request from 'supertest';
import { ApiKeyEntity } from '../../src/api-keys/entities/api-key.entity';
import { PUBLISHABLE_PERMISSIONS } from '../../src/common/auth/permissions';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { SessionsService } from '../../src/users/auth/sessions.service';
import { altered } from '../support/altered';
import { OutboxEventEntity } from '../../src/common/outbox/outbox-event.entity';
import { startApp, TestApp } from '../support/app';
import { snapshotDatabase } from '../support/db-snapshot';
import { ISO } from '../support/matchers';
import { expectExactProblem, expectProblem } from '../support/problem';
import { agent, createTenant, Tenant } from '../support/tenant';

/**
 * Publishable keys (docs/foundation.md, "Publishable keys"): `sb_pub_…`, safe in a browser. They
 * read what anyone may (published content, collections, catalog) plus media, call the public
 * routes, are refused everywhere else, only from their allowed origins, within their own limit.
 * The matrix over every operation is in key-permissions.e2e-spec.ts.
 */
describe('publishable keys', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startApp({ env: { JOBS_ENABLED: 'false' } });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(() => t.close());

  const contentUrl = (x: Tenant) => `/api/v2/sites/${x.siteName}/content`;
  const makeKey = async (owner: Tenant, body: Record<string, unknown> = {}) => {
    const res = await owner.api.post('/api/v2/api-keys').send({ name: 'front end', kind: 'publishable', ...body });
    expect(res.status).toBe(201);
    return res.body as { id: number; key: string; [field: string]: unknown };
  };
  const withKey = (key: string, url: string, origin?: string) => {
    const req = request(t.server).get(url).set('x-api-key', key);
    return origin ? req.set('origin', origin) : req;
  };

  it('is created with its kind, fixed permissions, origins and limit, and an event', async () => {
    const made = await makeKey(a, { allowedOrigins: ['https://shop.example', 'http://127.0.0.1:8080'] });
    expect(made.key).toMatch(/^sb_pub_[A-Za-z0-9]{40}$/);
    expect(PUBLISHABLE_PERMISSIONS).toEqual(
      expect.arrayContaining(['catalog:read', 'collections:read', 'content:read', 'media:read']),
    );
    expect(made).toEqual({
      id: expect.any(Number),
      name: 'front end',
      kind: 'publishable',
      prefix: made.key.slice(0, 12),
      last4: made.key.slice(-4),
      siteIds: null,
      // The reads it gives, sorted: the interface's four, and any module's that joined them.
      permissions: [...PUBLISHABLE_PERMISSIONS],
      allowedOrigins: ['https://shop.example', 'http://127.0.0.1:8080'],
      rateLimitPerMinute: null,
      createdAt: ISO,
      lastUsedAt: null,
      expiresAt: null,
      previousSecret: null,
      key: made.key,
    });
    const row = await t.db.getRepository(ApiKeyEntity).findOneByOrFail({ id: made.id });
    expect({ kind: row.kind, origins: row.allowedOrigins, rate: row.rateLimitPerMinute }).toEqual({
      kind: 'publishable',
      origins: ['https://shop.example', 'http://127.0.0.1:8080'],
      rate: null,
    });
    const events = await t.db
      .getRepository(OutboxEventEntity)
      .findBy({ accountId: a.accountId, name: 'api_key.created' });
    expect(events.map((e) => e.payload)).toContainEqual({ id: made.id, name: 'front end', kind: 'publishable' });
    // A secret key says it is one, and has neither origins nor a limit of its own.
    const secret = await a.api.get(`/api/v2/api-keys/${a.keyId}`);
    expect(secret.body).toMatchObject({ kind: 'secret', allowedOrigins: null, rateLimitPerMinute: null });
  });

  it('refuses fields of the other kind and malformed origins, creating nothing', async () => {
    const before = await snapshotDatabase(t.db);
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ allowedOrigins: ['https://shop.example'] }, 'allowedOrigins', 'is only for a publishable key'],
      [{ rateLimitPerMinute: 10 }, 'rateLimitPerMinute', 'is only for a publishable key'],
      [{ kind: 'publishable', permissions: ['content:read'] }, 'permissions', 'is fixed for a publishable key'],
      [{ kind: 'publishable', allowedOrigins: ['https://shop.example/path'] }, 'allowedOrigins', 'origin'],
      [{ kind: 'publishable', allowedOrigins: ['HTTPS://SHOP.EXAMPLE'] }, 'allowedOrigins', 'origin'],
      [{ kind: 'publishable', allowedOrigins: ['javascript:alert(1)'] }, 'allowedOrigins', 'origin'],
      [{ kind: 'publishable', rateLimitPerMinute: 0 }, 'rateLimitPerMinute', 'must not be less than 1'],
      [{ kind: 'publishable', allowedOrigins: [] }, 'allowedOrigins', 'at least one origin'],
      [{ kind: 'restricted' }, 'kind', 'must be one of'],
    ];
    for (const [body, path, message] of cases) {
      const res = await a.api.post('/api/v2/api-keys').send({ name: 'bad', ...body });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([{ path, message: expect.stringContaining(message) }]);
    }
    expect(await snapshotDatabase(t.db)).toEqual(before);
  });

  it('cannot be made by a key that lacks the reads it gives', async () => {
    const limited = await a.api
      .post('/api/v2/api-keys')
      .send({ name: 'limited', permissions: ['api-keys:write', 'content:read'] });
    const before = await snapshotDatabase(t.db);
    const res = await agent(t, limited.body.key)
      .post('/api/v2/api-keys')
      .send({ name: 'front end', kind: 'publishable' });
    expectExactProblem(
      res,
      403,
      'insufficient_permission',
      'Forbidden',
      `A key cannot give more than it has: this key lacks ${PUBLISHABLE_PERMISSIONS.filter((p) => p !== 'content:read')
        .map((p) => `\`${p}\``)
        .join(', ')}`,
    );
    expect(await snapshotDatabase(t.db)).toEqual(before);
  });

  it('reads what is published, never drafts, and media', async () => {
    const { key } = await makeKey(a);
    const published = await a.api.post(contentUrl(a)).send({ title: 'Out now', status: 'published' });
    const draft = await a.api.post(contentUrl(a)).send({ title: 'Secret plans' });
    expect([published.status, draft.status]).toEqual([201, 201]);

    const list = await withKey(key, contentUrl(a));
    expect(list.status).toBe(200);
    const ids = (list.body.data as Array<{ id: number }>).map((c) => c.id);
    expect(ids).toContain(published.body.id);
    expect(ids).not.toContain(draft.body.id);
    expectProblem(await withKey(key, `${contentUrl(a)}/${draft.body.id}`), 404, 'not_found');
    // The secret key sees the draft: the difference is the key's kind.
    expect((await a.api.get(`${contentUrl(a)}/${draft.body.id}`)).status).toBe(200);
    // Credentialed answers are private, never shared by a cache.
    expect(list.headers['cache-control']).toBe('private, no-store');

    const media = await withKey(key, `/api/v2/sites/${a.siteName}/media`);
    expect(media.status).toBe(200);
    expect((await withKey(key, `/api/v2/sites/${a.siteName}/media/tags`)).status).toBe(200);
  });

  it('is refused on every other route, the same for any site, and nothing changes', async () => {
    const { key } = await makeKey(a);
    const pub = agent(t, key);
    const before = await snapshotDatabase(t.db);
    const refused = (res: request.Response, permission: string) =>
      expectExactProblem(
        res,
        403,
        'insufficient_permission',
        'Forbidden',
        'A publishable key may only read published data and call the public routes: this route needs a secret ' +
          `key with the \`${permission}\` permission`,
      );
    refused(await pub.post(contentUrl(a)).send({ title: 'Defaced' }), 'content:write');
    refused(await pub.delete(`${contentUrl(a)}/1`), 'content:write');
    refused(await pub.get(`/api/v2/sites/${a.siteName}/contacts`), 'contacts:read');
    refused(await pub.get(`/api/v2/sites/${a.siteName}/orders`), 'orders:read');
    refused(await pub.get(`${contentUrl(a)}/1/revisions`), 'content:read');
    refused(await pub.get(`${contentUrl(b)}/1/revisions`), 'content:read');
    refused(await pub.get('/api/v2/api-keys'), 'api-keys:read');
    refused(await pub.post('/api/v2/api-keys').send({ name: 'escalate' }), 'api-keys:write');
    refused(await pub.post(`/api/v2/sites/${a.siteName}/media/tags`).send({ name: 'x' }), 'media:write');
    // v1 takes secret keys only.
    expectProblem(await pub.get(`/v1/${a.siteName}/pages/1`), 403, 'insufficient_permission');
    // On a public route it does not serve, it reads as no key (nothing to refuse: anyone may call it).
    expect((await pub.get('/health')).status).toBe(200);
    // A site user's own routes need the user's session.
    expectProblem(await pub.get(`/api/v2/sites/${a.siteName}/users/me`), 403, 'session_required');
    expect(await snapshotDatabase(t.db)).toEqual(before);
  });

  it('calls the public writes: subscribe, sign-in and the contact form', async () => {
    const { key } = await makeKey(a, { allowedOrigins: ['https://shop.example'] });
    const pub = (method: 'post', url: string) => agent(t, key)[method](url).set('origin', 'https://shop.example');
    const list = await a.api.post(`/api/v2/sites/${a.siteName}/newsletter/lists`).send({ name: 'News' });
    const subscribed = await pub('post', `/api/v2/sites/${a.siteName}/newsletter/subscribe`).send({
      email: 'reader@example.org',
      lists: [list.body.id],
    });
    expect(subscribed.status).toBe(202);
    const otp = await pub('post', `/api/v2/sites/${a.siteName}/users/request-otp`).send({ email: 'ada@example.org' });
    expect(otp.status).toBe(202);
    // From another origin the same call is refused, and nothing is mailed or stored.
    const before = await snapshotDatabase(t.db);
    const elsewhere = await agent(t, key)
      .post(`/api/v2/sites/${a.siteName}/users/request-otp`)
      .set('origin', 'https://evil.example')
      .send({ email: 'victim@example.org' });
    expectProblem(elsewhere, 403, 'origin_not_allowed');
    expect(await snapshotDatabase(t.db)).toEqual(before);
    const contact = await pub('post', `/api/v2/sites/${a.siteName}/contacts`).send({
      name: 'Ada',
      email: 'ada@example.org',
      message: 'Hello',
    });
    expect(contact.status).toBe(201);
    // A publishable key sees the anonymous receipt, not the stored contact a secret key gets.
    expect(contact.body).not.toHaveProperty('id');
  });

  it("gives way to a site user's session sent beside it, and both must be valid", async () => {
    const { key } = await makeKey(a, { allowedOrigins: ['https://shop.example'] });
    const user = await t.db
      .getRepository(SiteUserEntity)
      .save({ siteId: a.siteId, email: 'member@example.org', name: 'Member', status: 'active', metadata: {} });
    const { token } = await t.db.transaction((em) => t.app.get(SessionsService).create(em, user, {}));
    const me = `/api/v2/sites/${a.siteName}/users/me`;
    const both = (apiKey: string, session: string) =>
      request(t.server)
        .get(me)
        .set('x-api-key', apiKey)
        .set('authorization', `Bearer ${session}`)
        .set('origin', 'https://shop.example');
    const res = await both(key, token);
    expect(res.status).toBe(200);
    expect(res.body.email).toBe('member@example.org');
    // The key alone has no "me"; a wrong key or a wrong session beside the other is a 401.
    expectProblem(await withKey(key, me, 'https://shop.example'), 403, 'session_required');
    expectProblem(await both(altered(key), token), 401, 'invalid_api_key');
    expectProblem(await both(key, altered(token)), 401, 'invalid_session');
    // A secret key beside a session stays the credential, as before.
    expectProblem(await both(a.key, token), 403, 'session_required');
  });

  it('is used only from its allowed origins', async () => {
    const { key } = await makeKey(a, { allowedOrigins: ['https://shop.example'] });
    expect((await withKey(key, contentUrl(a), 'https://shop.example')).status).toBe(200);
    for (const origin of ['https://evil.example', 'https://shop.example:8443', 'http://shop.example', undefined])
      expectExactProblem(
        await withKey(key, contentUrl(a), origin),
        403,
        'origin_not_allowed',
        'Forbidden',
        'This publishable key may not be used from this origin',
      );
    // The same refusal on a site of another account: it tells nothing about the site.
    expectProblem(await withKey(key, contentUrl(b), 'https://evil.example'), 403, 'origin_not_allowed');
    // A preflight from the allowed origin gets what a browser needs to send the key.
    const preflight = await request(t.server)
      .options(contentUrl(a))
      .set('origin', 'https://shop.example')
      .set('access-control-request-method', 'GET')
      .set('access-control-request-headers', 'x-api-key');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://shop.example');
    expect(preflight.headers['access-control-allow-headers']).toMatch(/x-api-key/i);
  });

  it('reaches only its sites: elsewhere it reads as no key on public routes and 404s on media', async () => {
    const mine = await makeKey(a, { siteIds: [a.siteId] });
    const draft = await b.api.post(contentUrl(b)).send({ title: 'B draft' });
    const other = await withKey(mine.key, contentUrl(b));
    expect(other.status).toBe(200);
    expect((other.body.data as Array<{ id: number }>).map((c) => c.id)).not.toContain(draft.body.id);
    expectProblem(await withKey(mine.key, `/api/v2/sites/${b.siteName}/media`), 404, 'site_not_found');
  });

  it('is limited per key across every caller, and revoked keys stop at once', async () => {
    const limited = await makeKey(a, { rateLimitPerMinute: 3 });
    expect(limited.rateLimitPerMinute).toBe(3);
    for (let i = 0; i < 3; i++) expect((await withKey(limited.key, contentUrl(a))).status).toBe(200);
    // Spent: where only the key admits (media) it is a 429 …
    const over = await withKey(limited.key, `/api/v2/sites/${a.siteName}/media`);
    expectProblem(over, 429, 'rate_limited');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    // … and on a public read it reads as no key: a flood through a copied key cannot deny the
    // site's readers what anyone may read (they stay limited by address).
    const asAnyone = await withKey(limited.key, `/api/v2/sites/${a.siteName}/collections`, 'https://evil.example');
    expect(asAnyone.status).toBe(200);
    // Another key, and callers without one, are not held by it.
    expect((await withKey((await makeKey(a)).key, contentUrl(a))).status).toBe(200);
    expect((await request(t.server).get(contentUrl(a))).status).toBe(200);

    // Rolled, it stays publishable: the new secret is an `sb_pub_` one with the same origins.
    const rolled = await a.api.post(`/api/v2/api-keys/${limited.id}/roll`).send({ gracePeriodSeconds: 0 });
    expect(rolled.status).toBe(200);
    expect(rolled.body.key).toMatch(/^sb_pub_[A-Za-z0-9]{40}$/);
    expect(rolled.body).toMatchObject({ kind: 'publishable', rateLimitPerMinute: 3 });
    expectProblem(await withKey(limited.key, contentUrl(a)), 401, 'invalid_api_key');

    const gone = await makeKey(a);
    expect((await withKey(gone.key, contentUrl(a))).status).toBe(200);
    expect((await a.api.delete(`/api/v2/api-keys/${gone.id}`)).status).toBe(204);
    expectProblem(await withKey(gone.key, contentUrl(a)), 401, 'invalid_api_key');
  });
});

describe('publishable keys and the limit per address (RATE_LIMIT_PUBLIC_MAX=3)', () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    // Behind a proxy that says who the client is: the counters live in the shared database, so
    // the test's own address (not 127.0.0.1, which other files count too) is one nobody used.
    t = await startApp({ env: { JOBS_ENABLED: 'false', RATE_LIMIT_PUBLIC_MAX: '3', TRUST_PROXY: 'true' } });
    a = await createTenant(t);
  });
  afterAll(() => t.close());

  it('never frees a caller from its address limit on public routes', async () => {
    const made = await a.api.post('/api/v2/api-keys').send({ name: 'front end', kind: 'publishable' });
    const url = `/api/v2/sites/${a.siteName}/products`;
    const client = `10.${randomInt(256)}.${randomInt(256)}.${1 + randomInt(250)}`;
    const from = () => request(t.server).get(url).set('x-forwarded-for', client);
    for (let i = 0; i < 3; i++) expect((await from().set('x-api-key', made.body.key)).status).toBe(200);
    expectProblem(await from().set('x-api-key', made.body.key), 429, 'rate_limited');
    // The address is held whichever way it calls next, with or without the key.
    expectProblem(await from(), 429, 'rate_limited');
    // A secret key is never limited by address.
    expect((await a.api.get(url)).status).toBe(200);
  });
});
