import { Controller, Get, Module } from '@nestjs/common';
import request from 'supertest';
import { SiteEntity } from '../../src/common/tenancy/entities/site.entity';
import { ApiKeyEntity } from '../../src/api-keys/entities/api-key.entity';
import { CurrentPrincipal, CurrentSite, Public, SessionAllowed } from '../../src/common/auth/decorators';
import { Principal, UserPrincipal } from '../../src/common/auth/principal';
import { SessionVerifiers } from '../../src/common/auth/session-verifiers';
import { SiteContext } from '../../src/common/tenancy/site-context';
import { eventually, startApp, TestApp } from '../support/app';
import { createTenant, Tenant, uniqueName } from '../support/tenant';
import { expectExactProblem } from '../support/problem';

/** Routes that exist only to exercise the real guard: what it resolved for the caller. */
@Controller()
class AuthProbeController {
  @Get('api/v2/sites/:siteName/probe')
  key(@CurrentSite() site: SiteContext, @CurrentPrincipal() p: Principal) {
    return { site, principal: p.kind };
  }

  @Public()
  @Get('api/v2/sites/:siteName/probe/public')
  open(@CurrentSite() site: SiteContext, @CurrentPrincipal() p: Principal) {
    // What a public content route does: drafts only for a key of the site.
    return { site, principal: p.kind, drafts: p.kind === 'key' };
  }

  @SessionAllowed()
  @Get('api/v2/sites/:siteName/probe/session')
  session(@CurrentSite() site: SiteContext, @CurrentPrincipal() p: Principal) {
    return { site, principal: p };
  }

  @Get('v1/project/:organization_id/:project_id/probe')
  project(@CurrentSite() site: SiteContext) {
    return { site };
  }

  @Get('v1/:site_name/probe')
  v1Site(@CurrentSite() site: SiteContext) {
    return { site };
  }
}

@Module({ controllers: [AuthProbeController] })
class AuthProbeModule {}

const UNAUTHORIZED = 'Unauthorized';
const INVALID_KEY = 'The API key is invalid or revoked';
const SITE_NOT_FOUND = 'Site not found';

describe('authentication and the AuthGuard', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  const ctx = (x: Tenant): SiteContext => ({ id: x.siteId, name: x.siteName, accountId: x.accountId });

  beforeAll(async () => {
    t = await startApp({ extraModules: [AuthProbeModule] });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(() => t.close());

  /** A second key of the tenant's account, made through the API. */
  async function createKey(x: Tenant, body: Record<string, unknown> = {}): Promise<{ id: number; key: string }> {
    const res = await x.api.post('/api/v2/api-keys').send({ name: uniqueName('k'), ...body });
    expect(res.status).toBe(201);
    return { id: res.body.id, key: res.body.key };
  }

  describe('v1: every /v1 path needs x-api-key', () => {
    it('no x-api-key is a 401 missing_api_key, even on a route that does not exist', async () => {
      const res = await request(t.server).get(`/v1/${a.siteName}/pages/1`);
      expectExactProblem(res, 401, 'missing_api_key', UNAUTHORIZED, 'The x-api-key header is required');
    });

    it('a bearer key is not accepted on v1 (x-api-key only)', async () => {
      const res = await request(t.server).get(`/v1/${a.siteName}/probe`).set('authorization', `Bearer ${a.key}`);
      expectExactProblem(res, 401, 'missing_api_key', UNAUTHORIZED, 'The x-api-key header is required');
    });

    it.each([
      ['a well-formed unknown key', `sb_live_${'A'.repeat(40)}`],
      ['a malformed key', 'not-a-key'],
      ['an empty key', ''],
      ['a key with a bad prefix', `sk_live_${'A'.repeat(40)}`],
    ])('%s is a 401 invalid_api_key', async (_label, key) => {
      const res = await request(t.server).get(`/v1/${a.siteName}/pages/1`).set('x-api-key', key);
      expectExactProblem(res, 401, 'invalid_api_key', UNAUTHORIZED, INVALID_KEY);
    });

    it('a valid key reaches its own site by name', async () => {
      const res = await request(t.server).get(`/v1/${a.siteName}/probe`).set('x-api-key', a.key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ site: ctx(a) });
    });

    it('a key of another account on a v1 path is a 404', async () => {
      const res = await request(t.server).get(`/v1/${a.siteName}/probe`).set('x-api-key', b.key);
      expectExactProblem(res, 404, 'site_not_found', 'Not found', SITE_NOT_FOUND);
      const page = await request(t.server).get(`/v1/${a.siteName}/pages/1`).set('x-api-key', b.key);
      expectExactProblem(page, 404, 'site_not_found', 'Not found', SITE_NOT_FOUND);
    });

    it('a project route resolves the site by organization_id (account) and project_id (site)', async () => {
      const res = await request(t.server).get(`/v1/project/${a.accountId}/${a.siteId}/probe`).set('x-api-key', a.key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ site: ctx(a) });
    });

    it.each([
      ['another account as organization', (x: Tenant, y: Tenant) => `/v1/project/${y.accountId}/${x.siteId}/probe`],
      ['the site of another account', (x: Tenant, y: Tenant) => `/v1/project/${y.accountId}/${y.siteId}/probe`],
      ['a project id that does not exist', (x: Tenant) => `/v1/project/${x.accountId}/999999999999/probe`],
    ])('a project route with %s is a 404', async (_label, url) => {
      const res = await request(t.server).get(url(a, b)).set('x-api-key', a.key);
      expectExactProblem(res, 404, 'site_not_found', 'Not found', SITE_NOT_FOUND);
    });

    // Ids are canonical digits on every route (docs/foundation.md, "Input rules"); the answer
    // depends on the text alone, so it tells nothing about which projects exist.
    it.each([
      ['not a number', 'abc', 'project_id'],
      ['in hex', '0x1', 'project_id'],
      ['with a leading zero', '01', 'project_id'],
    ])('a project id %s is a 400 naming it', async (_label, projectId, path) => {
      const res = await request(t.server).get(`/v1/project/${a.accountId}/${projectId}/probe`).set('x-api-key', a.key);
      expectExactProblem(res, 400, 'validation_failed', 'Validation failed', '1 field is invalid', [
        { path, message: 'must be a positive integer' },
      ]);
    });

    it('a project route without a key is a 401 missing_api_key', async () => {
      const res = await request(t.server).get(`/v1/project/${a.accountId}/${a.siteId}/probe`);
      expectExactProblem(res, 401, 'missing_api_key', UNAUTHORIZED, 'The x-api-key header is required');
    });
  });

  describe('v2 keys', () => {
    it('accepts the key as x-api-key and records its use', async () => {
      const k = await createKey(a);
      const res = await request(t.server).get(`/api/v2/sites/${a.siteName}/probe`).set('x-api-key', k.key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ site: ctx(a), principal: 'key' });
      const used = await eventually(
        async () => (await t.db.getRepository(ApiKeyEntity).findOneByOrFail({ id: k.id })).lastUsedAt ?? undefined,
      );
      expect(Date.now() - used.getTime()).toBeLessThan(60_000);
    });

    it('accepts the key as Authorization: Bearer', async () => {
      const res = await request(t.server)
        .get(`/api/v2/sites/${a.siteName}/probe`)
        .set('authorization', `Bearer ${a.key}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ site: ctx(a), principal: 'key' });
    });

    it.each([
      ['Basic credentials', 'Basic dXNlcjpwYXNz'],
      ['a bare token', 'sometoken'],
      ['Bearer without a token', 'Bearer '],
      ['two tokens', 'Bearer a b'],
    ])('a malformed Authorization (%s) is a 401', async (_label, header) => {
      const res = await request(t.server).get(`/api/v2/sites/${a.siteName}/probe`).set('authorization', header);
      expectExactProblem(res, 401, 'malformed_authorization', UNAUTHORIZED, 'Authorization must be "Bearer <token>"');
    });

    it('a bearer key that does not verify is a 401 invalid_api_key', async () => {
      const res = await request(t.server)
        .get(`/api/v2/sites/${a.siteName}/probe`)
        .set('authorization', `Bearer sb_live_${'z'.repeat(40)}`);
      expectExactProblem(res, 401, 'invalid_api_key', UNAUTHORIZED, INVALID_KEY);
    });

    it('a bearer token that is not a key, with no session verifier registered, is a 401 invalid_session', async () => {
      const res = await request(t.server)
        .get(`/api/v2/sites/${a.siteName}/probe`)
        .set('authorization', 'Bearer opaque-session-token');
      expectExactProblem(res, 401, 'invalid_session', UNAUTHORIZED, 'The session token is invalid, expired or revoked');
    });

    it('an invalid key is a 401 even on a public route', async () => {
      const res = await request(t.server)
        .get(`/api/v2/sites/${a.siteName}/probe/public`)
        .set('x-api-key', 'sb_live_short');
      expectExactProblem(res, 401, 'invalid_api_key', UNAUTHORIZED, INVALID_KEY);
    });

    it('a revoked key is refused at once', async () => {
      const k = await createKey(a);
      expect((await request(t.server).get('/api/v2/api-keys').set('x-api-key', k.key)).status).toBe(200);
      const del = await a.api.delete(`/api/v2/api-keys/${k.id}`);
      expect(del.status).toBe(204);
      const res = await request(t.server).get('/api/v2/api-keys').set('x-api-key', k.key);
      expectExactProblem(res, 401, 'invalid_api_key', UNAUTHORIZED, INVALID_KEY);
      const row = await t.db.getRepository(ApiKeyEntity).findOneByOrFail({ id: k.id });
      expect(row.revokedAt).toBeInstanceOf(Date);
    });

    it('an expired key is refused', async () => {
      const k = await createKey(a);
      await t.db.query("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1", [k.id]);
      const res = await request(t.server).get(`/api/v2/sites/${a.siteName}`).set('x-api-key', k.key);
      expectExactProblem(res, 401, 'invalid_api_key', UNAUTHORIZED, INVALID_KEY);
      const bearer = await request(t.server).get(`/api/v2/sites/${a.siteName}`).set('authorization', `Bearer ${k.key}`);
      expectExactProblem(bearer, 401, 'invalid_api_key', UNAUTHORIZED, INVALID_KEY);
    });

    it('a key with a future expiry still works', async () => {
      const k = await createKey(a, { expiresAt: new Date(Date.now() + 3600_000).toISOString() });
      const res = await request(t.server).get(`/api/v2/sites/${a.siteName}/probe`).set('x-api-key', k.key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ site: ctx(a), principal: 'key' });
    });

    it('anonymous on a key-only route is a 401 missing_credential', async () => {
      for (const url of [
        `/api/v2/sites/${a.siteName}/probe`,
        '/api/v2/api-keys',
        `/api/v2/sites/${a.siteName}`,
        '/api/v2/sites',
      ]) {
        const res = await request(t.server).get(url);
        expectExactProblem(res, 401, 'missing_credential', UNAUTHORIZED, 'An API key (x-api-key) is required');
      }
      const post = await request(t.server).post('/api/v2/sites').send({ name: uniqueName() });
      expectExactProblem(post, 401, 'missing_credential', UNAUTHORIZED, 'An API key (x-api-key) is required');
    });

    it('a site of another account is a 404 site_not_found', async () => {
      const res = await a.api.get(`/api/v2/sites/${b.siteName}`);
      expectExactProblem(res, 404, 'site_not_found', 'Not found', SITE_NOT_FOUND);
      const probe = await a.api.get(`/api/v2/sites/${b.siteName}/probe`);
      expectExactProblem(probe, 404, 'site_not_found', 'Not found', SITE_NOT_FOUND);
    });

    it('@CurrentSite() answers 404 for a name that does not exist or is not a site name', async () => {
      for (const name of [uniqueName('nosuch'), 'Not_A_Name', 'x'.repeat(64)]) {
        const res = await a.api.get(`/api/v2/sites/${name}/probe`);
        expectExactProblem(res, 404, 'site_not_found', 'Not found', SITE_NOT_FOUND);
      }
    });
  });

  describe('a key restricted to one site', () => {
    let restricted: string;
    let otherSite: string;

    beforeAll(async () => {
      restricted = (await createKey(a, { siteIds: [a.siteId] })).key;
      otherSite = uniqueName();
      expect((await a.api.post('/api/v2/sites').send({ name: otherSite })).status).toBe(201);
    });

    it('reaches its site', async () => {
      const res = await request(t.server).get(`/api/v2/sites/${a.siteName}/probe`).set('x-api-key', restricted);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ site: ctx(a), principal: 'key' });
    });

    it('cannot reach another site of the same account (404)', async () => {
      const res = await request(t.server).get(`/api/v2/sites/${otherSite}`).set('x-api-key', restricted);
      expectExactProblem(res, 404, 'site_not_found', 'Not found', SITE_NOT_FOUND);
      const probe = await request(t.server)
        .get(`/api/v2/sites/${otherSite}/probe`)
        .set('authorization', `Bearer ${restricted}`);
      expectExactProblem(probe, 404, 'site_not_found', 'Not found', SITE_NOT_FOUND);
    });

    it('cannot manage keys or create sites (403 key_restricted)', async () => {
      const detail = 'This key is restricted to some sites and cannot manage the account';
      const list = await request(t.server).get('/api/v2/api-keys').set('x-api-key', restricted);
      expectExactProblem(list, 403, 'key_restricted', 'Forbidden', detail);
      const create = await request(t.server)
        .post('/api/v2/api-keys')
        .set('x-api-key', restricted)
        .send({ name: 'escalate' });
      expectExactProblem(create, 403, 'key_restricted', 'Forbidden', detail);
      const name = uniqueName();
      const site = await request(t.server).post('/api/v2/sites').set('x-api-key', restricted).send({ name });
      expectExactProblem(site, 403, 'key_restricted', 'Forbidden', detail);
      expect(await t.db.getRepository(SiteEntity).countBy({ name })).toBe(0);
      expect(await t.db.getRepository(ApiKeyEntity).countBy({ accountId: a.accountId, name: 'escalate' })).toBe(0);
    });
  });

  describe('@Public() routes', () => {
    it('admit anonymous callers, who see no drafts', async () => {
      const res = await request(t.server).get(`/api/v2/sites/${a.siteName}/probe/public`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ site: ctx(a), principal: 'anonymous', drafts: false });
    });

    it('resolve a key of the site, which sees drafts', async () => {
      const res = await a.api.get(`/api/v2/sites/${a.siteName}/probe/public`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ site: ctx(a), principal: 'key', drafts: true });
    });

    it('read a key of another account like an anonymous caller: no drafts, no 404', async () => {
      const res = await b.api.get(`/api/v2/sites/${a.siteName}/probe/public`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ site: ctx(a), principal: 'anonymous', drafts: false });
    });

    it('still answer 404 for a site that does not exist', async () => {
      const res = await request(t.server).get(`/api/v2/sites/${uniqueName('nosuch')}/probe/public`);
      expectExactProblem(res, 404, 'site_not_found', 'Not found', SITE_NOT_FOUND);
    });
  });

  describe('site-user sessions (a registered verifier)', () => {
    const token = `sess_${uniqueName()}`;
    let user: UserPrincipal;
    let sameAccountSite: string;

    beforeAll(async () => {
      user = { kind: 'user', accountId: a.accountId, siteId: a.siteId, userId: 7, sessionId: 11 };
      // The real registry with a real verifier function: one token, valid for one site.
      t.app.get(SessionVerifiers).register(async (presented) => (presented === token ? user : null));
      sameAccountSite = uniqueName();
      expect((await a.api.post('/api/v2/sites').send({ name: sameAccountSite })).status).toBe(201);
    });

    const withSession = (url: string) => request(t.server).get(url).set('authorization', `Bearer ${token}`);

    it('a session reaches a @SessionAllowed() route of its site', async () => {
      const res = await withSession(`/api/v2/sites/${a.siteName}/probe/session`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ site: ctx(a), principal: user });
    });

    it('a session on a key-only route is a 403 session_not_allowed', async () => {
      const detail = 'A site-user session may not call this route';
      expectExactProblem(
        await withSession(`/api/v2/sites/${a.siteName}/probe`),
        403,
        'session_not_allowed',
        'Forbidden',
        detail,
      );
      expectExactProblem(await withSession('/api/v2/api-keys'), 403, 'session_not_allowed', 'Forbidden', detail);
    });

    it('a session of another site is a 401 on a @SessionAllowed() route, even in the same account: a session is bound to its site', async () => {
      const res = await withSession(`/api/v2/sites/${sameAccountSite}/probe/session`);
      expectExactProblem(res, 401, 'invalid_session', UNAUTHORIZED, 'The session belongs to another site');
    });

    it('a session on a public route of its site is resolved (no drafts)', async () => {
      const res = await withSession(`/api/v2/sites/${a.siteName}/probe/public`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ site: ctx(a), principal: 'user', drafts: false });
    });

    it('a session on a public route of another site reads like anonymous', async () => {
      const res = await withSession(`/api/v2/sites/${b.siteName}/probe/public`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ site: ctx(b), principal: 'anonymous', drafts: false });
    });

    it('a token the verifier refuses is a 401 invalid_session', async () => {
      const res = await request(t.server)
        .get(`/api/v2/sites/${a.siteName}/probe/session`)
        .set('authorization', `Bearer ${token}x`);
      expectExactProblem(res, 401, 'invalid_session', UNAUTHORIZED, 'The session token is invalid, expired or revoked');
    });

    it('a session is no credential on v1 (x-api-key only)', async () => {
      const res = await withSession(`/v1/${a.siteName}/probe`);
      expectExactProblem(res, 401, 'missing_api_key', UNAUTHORIZED, 'The x-api-key header is required');
    });
  });
});
