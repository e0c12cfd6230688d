import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { contentUrl, makeContent } from '../support/factories';
import { binary, makePdf, pathOf, tempMediaDir } from '../support/files';
import { loadOperations, Operation } from '../support/openapi-operations';
import { operationUrl, ResourceFixtures, seedResources } from '../support/resource-fixtures';
import { createTenant } from '../support/tenant';

/**
 * docs/security.md, "Caching of credentialed answers": every answer to a request that carries a
 * key or a session, valid or not, is `Cache-Control: private, no-store` with `Vary: Origin,
 * Authorization, X-Api-Key`; anonymous public reads keep `public`; the per-person newsletter
 * answers (reached by a token) are never publicly cacheable either.
 */
describe('credentialed answers are private', () => {
  let t: TestApp;
  let f: ResourceFixtures;
  let gets: Operation[];
  const media = tempMediaDir('private-answers');

  beforeAll(async () => {
    t = await startApp({ env: { MEDIA_LOCAL_DIR: media.dir, RATE_LIMIT_PUBLIC_MAX: '100000' } });
    f = await seedResources(t, await createTenant(t));
    gets = (await loadOperations(t.server)).operations.filter((op) => op.method === 'get');
  }, 60_000);
  afterAll(async () => {
    await t.close();
    media.remove();
  });

  const expectPrivate = (res: request.Response, label: string) => {
    const vary = String(res.headers.vary ?? '')
      .split(',')
      .map((v) => v.trim().toLowerCase());
    expect({ label, cacheControl: res.headers['cache-control'], vary: vary.sort() }).toEqual({
      label,
      cacheControl: 'private, no-store',
      vary: expect.arrayContaining(['origin', 'authorization', 'x-api-key']) as unknown,
    });
  };

  it('every GET of the document, called with a key (a session on /users/me), answers private', async () => {
    expect(gets.length).toBeGreaterThan(50);
    const statuses: Record<number, number> = {};
    for (const op of gets) {
      const url = operationUrl(f, op);
      const call = request(t.server).get(url);
      const res = await (op.sessionOnly
        ? call.set('Authorization', `Bearer ${f.sessionToken}`)
        : call.set('x-api-key', f.tenant.key));
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      expect(res.status).toBeLessThan(500);
      expectPrivate(res, `${op.label} ${res.status}`);
    }
    // Mostly real answers, not only refusals.
    expect(statuses[200]).toBeGreaterThan(gets.length / 2);
  }, 120_000);

  it('a key as a Bearer token, an invalid key, a bad Authorization and an expired-looking session: private too', async () => {
    const url = '/api/v2/api-keys';
    expectPrivate(
      await request(t.server).get(url).set('Authorization', `Bearer ${f.tenant.key}`).expect(200),
      'bearer',
    );
    expectPrivate(await request(t.server).get(url).set('x-api-key', 'sb_live_nope').expect(401), 'invalid key');
    expectPrivate(await request(t.server).get(url).set('Authorization', 'Basic abc').expect(401), 'basic');
    expectPrivate(
      await request(t.server).get('/api/v2/users/me').set('Authorization', 'Bearer sbs_nope').expect(401),
      'session',
    );
    // Refused before routing (v1 without x-api-key is a 401 too, but this one has a key).
    expectPrivate(await request(t.server).get('/v1/no/such/route').set('x-api-key', 'sb_live_nope'), 'v1');
  });

  it('drafts: a keyed read of a draft is private; anonymous reads stay public and never show it', async () => {
    const { tenant } = f;
    const draft = await makeContent(tenant, { title: 'Secret draft', status: 'draft' });
    const keyed = await tenant.api.get(contentUrl(tenant, `/${draft.id}`)).expect(200);
    expect(keyed.body.title).toBe('Secret draft');
    expectPrivate(keyed, 'draft by id');
    const keyedList = await tenant.api.get(`${contentUrl(tenant)}?status=draft`).expect(200);
    expect(keyedList.body.data.map((c: { id: number }) => c.id)).toContain(draft.id);
    expectPrivate(keyedList, 'draft list');

    const anon = await request(t.server).get(contentUrl(tenant)).expect(200);
    expect(anon.body.data.map((c: { id: number }) => c.id)).not.toContain(draft.id);
    expect(anon.headers['cache-control']).toBe('public, no-cache');
    // Revalidating the public tag with a key gets the private answer, not a 304 of the public one.
    const revalidated = await tenant.api.get(contentUrl(tenant)).set('If-None-Match', anon.headers.etag).expect(200);
    expectPrivate(revalidated, 'keyed revalidation');
  });

  it('3xx and 304 with a key are private: a stored file revalidated, the /docs/ redirect', async () => {
    const upload = await f.tenant.api
      .post(`/api/v2/sites/${f.tenant.siteName}/media`)
      .attach('file', makePdf(), 'private.pdf')
      .expect(201);
    const path = pathOf(upload.body.link as string);
    const anon = await request(t.server).get(path).buffer(true).parse(binary).expect(200);
    expect(anon.headers['cache-control']).toMatch(/^public/);
    const keyed = await request(t.server).get(path).set('x-api-key', f.tenant.key).buffer(true).parse(binary);
    expect(keyed.status).toBe(200);
    expectPrivate(keyed, 'file');
    const notModified = await request(t.server)
      .get(path)
      .set('x-api-key', f.tenant.key)
      .set('If-None-Match', String(anon.headers.etag));
    expect(notModified.status).toBe(304);
    expectPrivate(notModified, 'file 304');
    const redirect = await request(t.server).get('/docs/').set('x-api-key', f.tenant.key);
    expect(redirect.status).toBe(301);
    expectPrivate(redirect, 'redirect');
  });

  it('anonymous per-person answers (newsletter pages, tracking) and problems are never publicly cacheable', async () => {
    const site = `/api/v2/sites/${f.tenant.siteName}/newsletter`;
    const forged = 'm.1.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA';
    const answers = [
      await request(t.server).get(`${site}/preferences/${forged}`).set('Accept', 'text/html'),
      await request(t.server).get(`${site}/confirm/c.1.AAAAAAAAAAAAAAAAAAAAAA.1.AAAAAAAAAAAAAAAAAAAAAA`),
      await request(t.server).post(`${site}/unsubscribe`).send({ token: forged }),
      await request(t.server).post(`${site}/track/open/o.1.1.AAAAAAAAAAAAAAAAAAAAAA`),
      await request(t.server).get(`${site}/track/click/k.1.1.0.AAAAAAAAAAAAAAAAAAAAAA`),
      await request(t.server).get(contentUrl(f.tenant, '/no-such-item')),
    ];
    for (const res of answers) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers['cache-control']).toMatch(/no-store/);
      expect(res.headers['cache-control']).not.toMatch(/public/);
    }
  });
});
