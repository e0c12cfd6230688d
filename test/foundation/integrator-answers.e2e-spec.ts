import request from 'supertest';
import { CHALLENGES } from '../../src/common/auth/challenges';
import { declaredProblems } from '../../src/common/errors/problem-codes';
import { startApp, TestApp } from '../support/app';
import { expectExactProblem, expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';

/**
 * Issue 47 row 8, what an integrator meets first: a problem's `type` resolves to a page about its
 * code, every 401 says what credential it takes (`WWW-Authenticate`), the usual x-api-key mistake
 * is named, a 413 says the limit, and the API's root leads to its reference.
 */
describe('answers an integrator can act on', () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    t = await startApp();
    a = await createTenant(t);
  });
  afterAll(() => t.close());

  describe('problem types resolve (GET /problems/<type>)', () => {
    const declared = () =>
      [...declaredProblems()].flatMap(([, codes]) => Object.entries(codes).map(([code, status]) => ({ code, status })));

    it('every declared code has a page, HTML by default and JSON on Accept: application/json', async () => {
      const codes = declared();
      expect(codes.length).toBeGreaterThan(100);
      for (const { code, status } of codes) {
        const type = `/problems/${code.replace(/_/g, '-')}`;
        const html = await request(t.server).get(type);
        expect({ type, status: html.status, contentType: html.headers['content-type'] }).toEqual({
          type,
          status: 200,
          contentType: expect.stringMatching(/^text\/html/),
        });
        expect(html.text).toContain(`<code>${code}</code>, HTTP ${status}`);
        const json = await request(t.server).get(type).set('accept', 'application/json');
        expect(json.body).toEqual({
          type,
          code,
          status,
          title: expect.any(String),
          description: expect.stringContaining(`HTTP ${status}`),
          declaredBy: expect.any(Array),
        });
      }
    });

    it('the type of a real answer is one of them; an undeclared code is a 404', async () => {
      const missing = await request(t.server).get('/no/such/route');
      expectProblem(missing, 404, 'route_not_found');
      const page = await request(t.server).get(missing.body.type).set('accept', 'application/json');
      expect(page.body).toMatchObject({ code: 'route_not_found', status: 404, title: 'Route not found' });
      expectProblem(await request(t.server).get('/problems/no-such-code'), 404, 'route_not_found');
    });

    it('is read without a credential, and a bad one does not stand in the way', async () => {
      const res = await request(t.server).get('/problems/not-found').set('x-api-key', 'sb_live_wrong');
      expect(res.status).toBe(200);
    });
  });

  describe('WWW-Authenticate on every 401 (RFC 9110)', () => {
    it('a key route without a credential names both ways a key travels', async () => {
      const res = await request(t.server).get('/api/v2/api-keys');
      expectProblem(res, 401, 'missing_credential');
      expect(res.headers['www-authenticate']).toBe('ApiKey realm="sitebase", Bearer realm="sitebase"');
      expect(res.headers['www-authenticate']).toBe(CHALLENGES.any);
    });

    it('v1 takes x-api-key only', async () => {
      const res = await request(t.server).get(`/v1/${a.siteName}/pages`);
      expectProblem(res, 401, 'missing_api_key');
      expect(res.headers['www-authenticate']).toBe('ApiKey realm="sitebase"');
    });

    it("a site user's own route, and a session that does not verify, take a bearer session", async () => {
      const none = await request(t.server).get(`/api/v2/sites/${a.siteName}/users/me`);
      expectProblem(none, 401, 'missing_credential');
      expect(none.headers['www-authenticate']).toBe('Bearer realm="sitebase"');
      const wrong = await request(t.server)
        .get(`/api/v2/sites/${a.siteName}/users/me`)
        .set('authorization', 'Bearer not-a-session');
      expectProblem(wrong, 401, 'invalid_session');
      expect(wrong.headers['www-authenticate']).toBe('Bearer realm="sitebase"');
    });

    it('an invalid key has one too', async () => {
      const res = await request(t.server).get('/api/v2/api-keys').set('x-api-key', 'sb_live_wrong');
      expectProblem(res, 401, 'invalid_api_key');
      expect(res.headers['www-authenticate']).toBe(CHALLENGES.any);
    });

    it('the document requires it on every 401 it lists (so every answer the tests get is held to it)', async () => {
      const res = await request(t.server).get('/docs/openapi.json').expect(200);
      const doc = res.body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
      const listed = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item).flatMap(([verb, op]) => {
          const answer = op.responses?.['401'] as { headers?: Record<string, { required?: boolean }> } | undefined;
          return answer ? [{ at: `${verb} ${path}`, required: answer.headers?.['WWW-Authenticate']?.required }] : [];
        }),
      );
      expect(listed.length).toBeGreaterThan(100);
      expect(listed.filter((l) => l.required !== true)).toEqual([]);
    });
  });

  it('x-api-key: Bearer <key> is refused with what to send instead', async () => {
    const res = await request(t.server).get('/api/v2/api-keys').set('x-api-key', `Bearer ${a.key}`);
    expectExactProblem(
      res,
      401,
      'invalid_api_key',
      'Unauthorized',
      'The API key is invalid or revoked: x-api-key takes the key alone (x-api-key: sb_live_…), without "Bearer "; or send Authorization: Bearer <key>',
    );
    // A key that is simply wrong gets no hint.
    const wrong = await request(t.server).get('/api/v2/api-keys').set('x-api-key', 'sb_live_wrong');
    expect(wrong.body.detail).toBe('The API key is invalid or revoked');
  });

  it('a 413 says the limit in bytes', async () => {
    const limit = t.configs.http.BODY_LIMIT;
    const big = JSON.stringify({ name: 'x'.repeat(limit) });
    const declared = await a.api.post('/api/v2/sites').set('content-type', 'application/json').send(big);
    expectExactProblem(
      declared,
      413,
      'payload_too_large',
      'Payload too large',
      `The request body is too large: at most ${limit} bytes`,
    );
  });

  it('GET / is a 302 to /docs', async () => {
    const res = await request(t.server).get('/');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/docs');
  });

  it('GET / stays a 404 when the docs are off', async () => {
    const off = await startApp({ env: { DOCS_ENABLED: 'false' } });
    try {
      expectProblem(await request(off.server).get('/'), 404, 'route_not_found');
    } finally {
      await off.close();
    }
  });
});
