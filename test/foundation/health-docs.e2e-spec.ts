import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { expectOrFix } from '../support/matchers';

interface Operation {
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
}

interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
}

const KEY_SECURITY = [{ apiKey: [] }, { bearer: [] }];

/**
 * The foundation's key-only routes: [method, path, summary, tag, documented problem statuses].
 * The statuses are derived from each route's shape (src/common/http/route-problems.ts): 401/403
 * for the key, 400 for a body, query or id, 404 under a path with parameters, 405 on every path,
 * 413/415 on writes, 429 for the key's rate limit, and the route's own 409.
 */
const KEY_ROUTES: Array<[string, string, string, string, string[]]> = [
  ['get', '/api/v2/api-keys', 'List API keys', 'API keys', ['400', '401', '403', '405', '415', '429']],
  [
    'post',
    '/api/v2/api-keys',
    'Create an API key (admin)',
    'API keys',
    ['400', '401', '403', '405', '409', '413', '415', '429'],
  ],
  [
    'get',
    '/api/v2/api-keys/{id}',
    'Get an API key by id',
    'API keys',
    ['400', '401', '403', '404', '405', '415', '429'],
  ],
  [
    'delete',
    '/api/v2/api-keys/{id}',
    'Revoke an API key by id',
    'API keys',
    ['400', '401', '403', '404', '405', '409', '415', '429'],
  ],
  [
    'post',
    '/api/v2/sites',
    'Create a site (admin)',
    'Admin: sites',
    ['400', '401', '403', '405', '409', '413', '415', '429'],
  ],
  ['get', '/api/v2/sites', 'List sites (admin)', 'Admin: sites', ['400', '401', '403', '405', '415', '429']],
  [
    'get',
    '/api/v2/sites/{siteName}',
    'Get a site (admin)',
    'Admin: sites',
    ['400', '401', '403', '404', '405', '415', '429'],
  ],
  ['delete', '/api/v2/account', 'Delete the account', 'Account', ['400', '401', '403', '405', '415', '429']],
  [
    'get',
    '/api/v2/account/deletion',
    'Get deletion status',
    'Account',
    ['400', '401', '403', '404', '405', '415', '429'],
  ],
  [
    'delete',
    '/api/v2/account/deletion',
    'Cancel a scheduled deletion (admin)',
    'Account',
    ['400', '401', '403', '404', '405', '409', '415', '429'],
  ],
  [
    'get',
    '/api/v2/account/deletion-preview',
    'Get deletion preview',
    'Account',
    ['400', '401', '403', '405', '415', '429'],
  ],
];

describe('health and API docs', () => {
  let t: TestApp;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    t = await startApp();
    const res = await request(t.server).get('/docs/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = res.body;
  });
  afterAll(() => t.close());

  describe('health', () => {
    it('GET /health answers ok without a credential', async () => {
      const res = await request(t.server).get('/health');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok' });
    });

    it('GET /health/ready checks the database', async () => {
      const res = await request(t.server).get('/health/ready');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok', database: 'up' });
    });

    it('health checks are not rate limited', async () => {
      const before: Array<{ n: number }> = await t.db.query('SELECT count(*)::int AS n FROM rate_limits');
      for (let i = 0; i < 3; i++) expect((await request(t.server).get('/health')).status).toBe(200);
      expect(await t.db.query('SELECT count(*)::int AS n FROM rate_limits')).toEqual(before);
    });
  });

  describe('/docs', () => {
    it('serves the Swagger UI page and its assets', async () => {
      const res = await request(t.server).get('/docs');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('<title>Sitebase API</title>');
      expect(res.text).toContain('<div id="swagger-ui"></div>');
      // The page's CSP (script-src 'self') allows no inline script: every script is a file.
      expect(res.text).not.toMatch(/<script>(?!\s*<\/script>)|<script(?![^>]*\bsrc=)[^>]*>/);
      for (const asset of ['swagger-ui-bundle.js', 'swagger-ui-init.js', 'swagger-ui.css']) {
        expect(res.text).toContain(`./docs/${asset}`);
        expect((await request(t.server).get(`/docs/${asset}`)).status).toBe(200);
      }
    });

    it("/docs/ (trailing slash) redirects to /docs, where the page's relative assets resolve", async () => {
      const res = await request(t.server).get('/docs/');
      expect(res.status).toBe(301);
      expect(res.headers.location).toBe('/docs');
      const page = await request(t.server).get(res.headers.location);
      const assets = [...page.text.matchAll(/(?:src|href)="(\.\/docs\/[^"]+)"/g)].map((m) => m[1]);
      expect(assets.length).toBeGreaterThanOrEqual(3);
      for (const asset of assets)
        expect((await request(t.server).get(new URL(asset, 'http://x/docs').pathname)).status).toBe(200);
    });

    it("describes the API, its two key schemes and the site users' session", () => {
      expect(doc.openapi).toMatch(/^3\./);
      expect(doc.info).toEqual(expect.objectContaining({ title: 'Sitebase API', version: '2.0' }));
      expect(doc.components.securitySchemes).toEqual({
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description:
            'API key: secret (sb_live_…), or publishable (sb_pub_…) on the operations marked x-sitebase-publishable',
        },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'API key',
          description: 'Secret API key as a bearer token (v2)',
        },
        session: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      });
    });

    it('lists the tags', () => {
      // The interface's groups in its order (v1 first), then the operator routes and health; a
      // module added in-house (npm run new:module) puts its tag before the operator routes.
      const fixed = [
        'v1 legacy',
        'API keys',
        'Account',
        'Newsletter',
        'Site users',
        'Media',
        'Content',
        'Email',
        'Collections',
        'Orders',
        'Categories',
        'Products',
        'Contacts',
        'Webhooks',
        'Admin: sites',
        'Admin: sender domains',
        'Admin: email providers',
        'Admin: payments',
        'Health',
      ];
      const names = doc.tags.map((tag) => tag.name);
      expectOrFix(
        "The tags are TAGS in src/common/openapi/openapi.ts: the interface's keep their order, and a new " +
          "module's goes above the `new:module: tags above` line there (npm run new:module puts it there)",
        () => {
          expect(names.filter((name) => fixed.includes(name))).toEqual(fixed);
          const added = names.filter((name) => !fixed.includes(name));
          expect(added.filter((name) => names.indexOf(name) > names.indexOf('Admin: sites'))).toEqual([]);
        },
      );
      // Every tag names some operations: a module's tag leaves TAGS with the module.
      const used = new Set(
        Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags ?? [])),
      );
      expect(
        names.filter((name) => !used.has(name)).map((name) => `${name}: no operation uses it; remove it from TAGS`),
      ).toEqual([]);
      for (const tag of doc.tags)
        expectOrFix(`${tag.name}: give its entry in TAGS (src/common/openapi/openapi.ts) a description`, () =>
          expect(tag.description).toEqual(expect.any(String)),
        );
      // Every operation uses a declared tag.
      const declared = new Set(doc.tags.map((tag) => tag.name));
      for (const [path, ops] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(ops)) {
          const label = `${method} ${path}`;
          const undeclared = (op.tags ?? []).filter((tag) => !declared.has(tag));
          expect({
            op: label,
            tags: undeclared.map((tag) => `${tag}: add it to TAGS in src/common/openapi/openapi.ts`),
          }).toEqual({
            op: label,
            tags: [],
          });
        }
      }
    });

    it('has the ProblemDto schema', () => {
      expect(doc.components.schemas.ProblemDto).toEqual({
        type: 'object',
        properties: {
          type: {
            type: 'string',
            example: '/problems/validation-failed',
            description: 'A page about the code (HTML, or JSON on `Accept: application/json`), relative to the API',
          },
          title: { type: 'string', example: 'Validation failed' },
          status: { type: 'number', example: 400 },
          detail: { type: 'string', example: '1 field is invalid' },
          code: { type: 'string', example: 'validation_failed' },
          errors: { type: 'array', items: { $ref: '#/components/schemas/FieldErrorDto' } },
          totalErrors: {
            type: 'number',
            example: 120,
            description: 'How many fields were invalid, present only when `errors` lists the first 50 of them',
          },
          requestId: { type: 'string', example: 'b3f0c2a4-8d1e-4f1a-9c55-0d8b1c1f2e77' },
        },
        required: ['type', 'title', 'status', 'code'],
      });
      expect(doc.components.schemas.FieldErrorDto).toEqual({
        type: 'object',
        properties: {
          path: { type: 'string', example: 'email' },
          message: { type: 'string', example: 'must be an email' },
        },
        required: ['path', 'message'],
      });
    });

    it.each(KEY_ROUTES)(
      '%s %s: summary, tag, key security and problem responses',
      (method, path, summary, tag, problems) => {
        const op = doc.paths[path]?.[method];
        expect(op).toBeDefined();
        expect({ summary: op.summary, tags: op.tags, security: op.security }).toEqual({
          summary,
          tags: [tag],
          security: KEY_SECURITY,
        });
        const documented = Object.keys(op.responses)
          .filter((status) => Number(status) >= 400)
          .sort();
        expect(documented).toEqual(problems);
        for (const status of problems) {
          expect(op.responses[status].content).toEqual({
            'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDto' } },
          });
        }
      },
    );

    it('marks exactly the operator routes outside the interface with x-sitebase-admin', () => {
      const admin = KEY_ROUTES.filter(
        ([method, path]) =>
          (doc.paths[path][method] as unknown as Record<string, unknown>)['x-sitebase-admin'] === true,
      ).map(([method, path]) => `${method} ${path}`);
      expect(admin.sort()).toEqual(
        KEY_ROUTES.filter(([, , summary]) => summary.endsWith('(admin)'))
          .map(([m, p]) => `${m} ${p}`)
          .sort(),
      );
      expect(admin).toHaveLength(5);
    });

    it('health routes are documented as public', () => {
      expect(doc.paths['/health'].get).toEqual(
        expect.objectContaining({ summary: 'Liveness: the process answers', tags: ['Health'] }),
      );
      expect(doc.paths['/health/ready'].get).toEqual(
        expect.objectContaining({ summary: 'Readiness: the database answers', tags: ['Health'] }),
      );
      // An explicit empty requirement: no credential.
      expect(doc.paths['/health'].get.security).toEqual([]);
      expect(doc.paths['/health/ready'].get.security).toEqual([]);
    });

    it('every operation has a summary', () => {
      const missing = Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.entries(ops)
          .filter(([, op]) => !op.summary)
          .map(([method]) => `${method.toUpperCase()} ${path}: give its @Route a summary (docs/modules.md)`),
      );
      expect(missing).toEqual([]);
    });
  });
});
