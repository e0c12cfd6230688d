import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { loadOperations, OpenApiDocument, Operation } from '../support/openapi-operations';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
const METHODS: Method[] = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * Issue #30, deliverable 2: every operation lists the statuses its shape can answer (derived in
 * ApiController/@Route, src/common/http/route-problems.ts), a wrong method on a known path is a
 * 405 with `Allow`, and a route without a body takes `{}`.
 */
describe('every answer documented', () => {
  let t: TestApp;
  let a: Tenant;
  let doc: OpenApiDocument;
  let operations: Operation[];

  beforeAll(async () => {
    t = await startApp();
    a = await createTenant(t);
    ({ doc, operations } = await loadOperations(t.server));
  });
  afterAll(() => t.close());

  /** A concrete URL of a documented path: this site's name, id 999999999 (nothing), a token. */
  const url = (path: string) =>
    path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      name === 'siteName' || name === 'site_name' ? a.siteName : /token/i.test(name) ? 'x' : '999999999',
    );
  const responses = (op: Operation) => new Set(op.responses);

  describe('the document', () => {
    it('lists 405 on every operation and 429 on every rate-limited one, each as a problem', () => {
      for (const op of operations) {
        expect([op.label, responses(op).has(405)]).toEqual([op.label, true]);
        if (!op.path.startsWith('/health')) expect([op.label, responses(op).has(429)]).toEqual([op.label, true]);
        const problems = doc.paths[op.path][op.method].responses as Record<string, { content?: unknown }>;
        for (const status of op.responses.filter((s) => s >= 400 && s !== 410))
          // The newsletter's pages give a browser the same problem as a page (text/html) besides.
          expect([op.label, status, problems[status].content]).toEqual([
            op.label,
            status,
            expect.objectContaining({
              'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDto' } },
            }),
          ]);
      }
    });

    it('lists 400 and 415 everywhere, 413 where a body is taken; 404 with path parameters or a query; 401 with a credential', () => {
      const missing: string[] = [];
      const need = (op: Operation, status: number, why: string) => {
        if (!responses(op).has(status)) missing.push(`${op.label}: ${status} (${why})`);
      };
      for (const op of operations) {
        // Any request may carry a malformed query string, a body or a Content-Encoding.
        need(op, 400, 'query string or body on any route');
        need(op, 415, 'Content-Encoding on any route');
        if (op.body !== 'none' || ['post', 'put', 'patch'].includes(op.method)) need(op, 413, 'body');
        if (op.pathParams.some((p) => p !== 'siteName' && p !== 'site_name')) need(op, 400, 'path id');
        if (op.pathParams.length > 0) need(op, 404, 'path');
        if (op.queryParams.length > 0) need(op, 400, 'query');
        if (op.security.length > 0) need(op, 401, 'credential');
        // A session on a key route, a key on a session route, a restricted or deleting account's key on a write.
        const write = op.method !== 'get';
        if (op.sessionOnly || (!op.isPublic && (op.security.includes('bearer') || write)))
          need(op, 403, 'credential refused');
        if (op.isPublic && op.security.length > 0 && write) need(op, 403, 'credential refused on a write');
      }
      expect(missing).toEqual([]);
    });

    it('lists 409 wherever Idempotency-Key is honoured, and documents the header', () => {
      const idempotent = operations.filter((op) =>
        ((doc.paths[op.path][op.method] as { parameters?: Array<{ name: string; in: string }> }).parameters ?? []).some(
          (p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key',
        ),
      );
      expect(idempotent.length).toBeGreaterThan(10);
      expect(idempotent.filter((op) => !responses(op).has(409)).map((op) => op.label)).toEqual([]);
    });

    it('documents Location on every 201 (the anonymous contact form may leave it out)', () => {
      const created = operations.filter((op) => responses(op).has(201));
      expect(created.length).toBeGreaterThan(15);
      for (const op of created) {
        const answer = (
          doc.paths[op.path][op.method].responses as Record<string, { headers?: Record<string, unknown> }>
        )['201'];
        expect([op.label, answer.headers?.Location]).toEqual([
          op.label,
          expect.objectContaining({
            required: !op.path.endsWith('/contacts'),
            schema: { type: 'string', format: 'uri' },
          }),
        ]);
      }
    });

    it('the tracking routes mail clients request are interface routes, not admin ones (row 11)', () => {
      for (const path of [
        '/api/v2/sites/{siteName}/newsletter/track/open/{token}',
        '/api/v2/sites/{siteName}/newsletter/track/click/{token}',
      ]) {
        const get = doc.paths[path].get as Record<string, unknown>;
        expect([path, get['x-sitebase-admin'], String(get.summary)]).toEqual([path, undefined, expect.any(String)]);
        expect(String(get.summary)).not.toContain('(admin)');
      }
    });
  });

  describe('405 Method Not Allowed', () => {
    it('a method a known path does not have is a 405 problem with Allow listing its methods (RFC 9110)', async () => {
      const res = await a.api.put(`/api/v2/sites/${a.siteName}/categories`).send({ name: 'x' });
      expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers.allow).toBe('GET, HEAD, POST');
      expect(res.body.detail).toBe('PUT is not a method of this path; it has GET, HEAD, POST');
      // Without a credential too: no route, no guard, nothing about the resource is told.
      const anonymous = await request(t.server).put(`/api/v2/sites/${a.siteName}/categories/1`);
      expectProblem(anonymous, 405, 'method_not_allowed');
      expect(anonymous.headers.allow).toBe('DELETE, GET, HEAD, PATCH');
      const v1 = await a.api.delete(`/v1/${a.siteName}/products/1`);
      expectProblem(v1, 405, 'method_not_allowed');
      expect(v1.headers.allow).toBe('PUT');
      // A path no route has stays a 404.
      expectProblem(await a.api.put(`/api/v2/sites/${a.siteName}/nothing-here`), 404, 'route_not_found');
    });

    it('for every documented path, a missing method answers 405 with exactly the documented methods in Allow', async () => {
      // A URL may match several templates (`…/media/categories` and `…/media/{id}`): Allow is their union.
      const templates = Object.entries(doc.paths).map(([path, ops]) => ({
        pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        methods: METHODS.filter((m) => m in ops),
      }));
      const failures: string[] = [];
      for (const path of Object.keys(doc.paths)) {
        const concrete = url(path);
        const methods = new Set(templates.filter((x) => x.pattern.test(concrete)).flatMap((x) => x.methods));
        const missing = METHODS.find((m) => !methods.has(m));
        if (!missing) continue;
        const res = await a.api[missing](concrete);
        const allow = [...[...methods].map((m) => m.toUpperCase()), ...(methods.has('get') ? ['HEAD'] : [])]
          .sort()
          .join(', ');
        if (res.status !== 405 || res.headers.allow !== allow)
          failures.push(`${missing.toUpperCase()} ${path}: ${res.status} Allow: ${res.headers.allow} (want ${allow})`);
      }
      expect(failures).toEqual([]);
    });
  });

  describe('routes without a body take `{}` (row 7)', () => {
    it('every body-less POST answers `{}` as it answers no body at all; a field is a 400', async () => {
      const failures: string[] = [];
      const actions = operations.filter((op) => op.method === 'post' && op.body === 'none');
      expect(actions.length).toBeGreaterThan(10);
      for (const op of actions) {
        const bare = await a.api.post(url(op.path));
        const empty = await a.api.post(url(op.path)).set('content-type', 'application/json').send('{}');
        if (bare.status !== empty.status || empty.status === 415)
          failures.push(`${op.label}: no body ${bare.status}, {} ${empty.status}`);
        const field = await a.api.post(url(op.path)).set('content-type', 'application/json').send('{"x":1}');
        // Refused with a 400, unless the route refused the caller before reading any body (a key on `/users/me`).
        if (field.status !== 400 && field.status !== bare.status) failures.push(`${op.label}: {"x":1} ${field.status}`);
      }
      expect(failures).toEqual([]);
    });
  });
});
