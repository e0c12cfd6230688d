import request from 'supertest';
import { SiteEntity } from '../../src/common/tenancy/entities/site.entity';
import { startApp, TestApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant, uniqueName } from '../support/tenant';

describe('RFC 9457 errors for everything a client can send', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTenant(t);
  });
  afterAll(() => t.close());

  const siteCount = () => t.db.getRepository(SiteEntity).countBy({ accountId: tenant.accountId });

  it('malformed JSON is a 400 malformed_json and changes nothing', async () => {
    const res = await tenant.api.post('/api/v2/sites').set('content-type', 'application/json').send('{"name": "x",');
    expectProblem(res, 400, 'malformed_json');
    expect(res.body.detail).toBe('The request body is not valid JSON');
    expect(await siteCount()).toBe(1);
  });

  it('an unknown field is a 400 validation_failed naming the field', async () => {
    const name = uniqueName();
    const res = await tenant.api.post('/api/v2/sites').send({ name, colour: 'red' });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([{ path: 'colour', message: 'is not allowed' }]);
    expect(await t.db.getRepository(SiteEntity).countBy({ name })).toBe(0);
  });

  it('an invalid field is a 400 with its path and message', async () => {
    const res = await tenant.api.post('/api/v2/sites').send({ name: 'Not A Valid Name!', title: 5 });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'name', message: expect.stringContaining('lower-case') },
        { path: 'title', message: 'must be a string' },
      ]),
    );
    expect(res.body.detail).toBe('2 fields are invalid');
  });

  describe('messages say what to send (issue 47 row 7)', () => {
    const errorsOf = async (res: request.Response) => {
      expectProblem(res, 400, 'validation_failed');
      return res.body.errors as Array<{ path: string; message: string }>;
    };

    it('a date that is not an RFC 3339 date-time shows one', async () => {
      const res = await tenant.api
        .post(`/api/v2/sites/${tenant.siteName}/content`)
        .send({ title: 'Dated', publishedAt: '2024-01-01' });
      expect(await errorsOf(res)).toEqual([
        { path: 'publishedAt', message: 'must be an RFC 3339 date-time, e.g. 2024-01-01T00:00:00Z' },
      ]);
    });

    it('a required field left out is required, not of a wrong type', async () => {
      const res = await tenant.api
        .post(`/api/v2/sites/${tenant.siteName}/products`)
        .send({ name: 'Mug', currency: 'EUR' });
      expect(await errorsOf(res)).toEqual([{ path: 'unitAmount', message: 'is required' }]);
      const site = await tenant.api.post('/api/v2/sites').send({});
      expect(await errorsOf(site)).toContainEqual({ path: 'name', message: 'is required' });
    });

    it('a null where the field has no null cannot be null', async () => {
      const content = await tenant.api.post(`/api/v2/sites/${tenant.siteName}/content`).send({ title: 'Kept' });
      const res = await tenant.api
        .patch(`/api/v2/sites/${tenant.siteName}/content/${content.body.id}`)
        .send({ title: null });
      expect(await errorsOf(res)).toEqual([{ path: 'title', message: 'cannot be null' }]);
      const nested = await tenant.api
        .post(`/api/v2/sites/${tenant.siteName}/content`)
        .send({ title: 'Authors', authors: [{ id: 1, name: null }] });
      expect(await errorsOf(nested)).toEqual([{ path: 'authors.0.name', message: 'cannot be null' }]);
    });
  });

  it('nested and array paths use dots', async () => {
    const res = await tenant.api.post('/api/v2/api-keys').send({ name: 'k', siteIds: [1, 'two'] });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([{ path: 'siteIds', message: expect.stringContaining('integer') }]);
  });

  it('a 10 MB JSON body is a 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(10 * 1024 * 1024) });
    const res = await tenant.api.post('/api/v2/sites').set('content-type', 'application/json').send(big);
    expectProblem(res, 413, 'payload_too_large');
    expect(await siteCount()).toBe(1);
  });

  it('an unknown route is a 404 route_not_found', async () => {
    const res = await request(t.server).get('/api/v2/no-such-thing');
    expectProblem(res, 404, 'route_not_found');
    expect(res.body.detail).toBe('No route GET /api/v2/no-such-thing');
  });

  it.each([
    ['a non-numeric id', '/api/v2/api-keys/abc', 'id'],
    ['a negative id', '/api/v2/api-keys/-4', 'id'],
    ['an id beyond 2^53', '/api/v2/api-keys/99999999999999999999', 'id'],
    ['a limit over 100', '/api/v2/api-keys?limit=101', 'limit'],
    ['a limit of zero', '/api/v2/api-keys?limit=0', 'limit'],
    ['an unknown query parameter', '/api/v2/api-keys?sort=name', 'sort'],
  ])('%s is a 400 naming the parameter', async (_label, url, path) => {
    const res = await tenant.api.get(url);
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
  });

  it('a forged cursor is a 400 invalid_cursor', async () => {
    const res = await tenant.api.get('/api/v2/api-keys?cursor=bm90LWEtY3Vyc29y');
    expectProblem(res, 400, 'invalid_cursor');
  });

  it('echoes a sane x-request-id and replaces an unsafe one', async () => {
    const ok = await request(t.server).get('/api/v2/nowhere').set('x-request-id', 'trace-123');
    expect(ok.headers['x-request-id']).toBe('trace-123');
    expect(ok.body.requestId).toBe('trace-123');
    const bad = await request(t.server).get('/api/v2/nowhere').set('x-request-id', 'bad id <script>');
    expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  // Was a 400 validation_failed: the body was never read, so a PATCH answered 200 and changed
  // nothing. A body the route cannot read is now a 415 (docs/foundation.md, "Input rules").
  it('a wrong content type on a JSON route is a 415, not a 500', async () => {
    const res = await tenant.api.post('/api/v2/sites').set('content-type', 'text/plain').send('name=abc');
    expectProblem(res, 415, 'unsupported_media_type');
    expect(await siteCount()).toBe(1);
  });

  it('an unsupported charset is a 415', async () => {
    const res = await tenant.api
      .post('/api/v2/sites')
      .set('content-type', 'application/json; charset=klingon')
      .send('{}');
    expectProblem(res, 415, 'unsupported_media_type');
  });

  it('a /v1 path in any letter case needs x-api-key', async () => {
    const res = await request(t.server).get(`/V1/${tenant.siteName}/pages/1`);
    expectProblem(res, 401, 'missing_api_key');
  });

  it('an empty site restriction is refused rather than making a key that reaches nothing', async () => {
    const res = await tenant.api.post('/api/v2/api-keys').send({ name: 'nowhere', siteIds: [] });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([
      { path: 'siteIds', message: 'must name at least one site (omit it for all sites)' },
    ]);
  });

  it("a key whose account is pending deletion still gets 404 for another account's site", async () => {
    const leaving = await createTenant(t);
    await leaving.api.delete('/api/v2/account').expect(202);
    const res = await leaving.api.post(`/api/v2/sites/${tenant.siteName}/media/categories`).send({ name: 'x' });
    expectProblem(res, 404, 'site_not_found');
    const own = await leaving.api.post(`/api/v2/sites/${leaving.siteName}/media/categories`).send({ name: 'x' });
    expectProblem(own, 403, 'account_pending_deletion');
  });
});
