import { METHODS } from 'node:http';
import { routerRoutes } from '../../src/common/internals/express-router';
import { startApp, TestApp } from '../support/app';

/**
 * Express tries route layers in the order they were registered, one path expression each, so a
 * route near the end of the table pays for every route before it (the newsletter's tracking
 * routes were layer ~190 of ~200). The modules whose public routes take the most requests are
 * registered first (FEATURE_MODULES, docs/performance.md "Routing"): these are the bench's rows.
 */
const HOT: Array<[string, string]> = [
  ['get', '/api/v2/sites/:siteName/content'],
  ['get', '/api/v2/sites/:siteName/content/:id'],
  ['get', '/api/v2/sites/:siteName/products'],
  ['get', '/api/v2/sites/:siteName/products/:id'],
  ['get', '/v1/:site_name/pages/:limit/:offset'],
  ['get', '/v1/:site_name/product_category/:product_category_id'],
  ['post', '/api/v2/sites/:siteName/newsletter/track/open/:token'],
  ['get', '/api/v2/sites/:siteName/newsletter/track/open/:token'],
  ['get', '/api/v2/sites/:siteName/newsletter/track/click/:token'],
  ['get', '/api/v2/sites/:siteName/users/me'],
];

/** Account and operator administration: rare, called by one owner, never by the public. */
const ADMIN = /^\/api\/v2\/(account|api-keys|sender-domains)(\/|$)/;

describe('Route order: hot public routes are tried early', () => {
  let t: TestApp;
  /** The route layers in the order Express tries them (one per verb and path). */
  let routes: Array<{ methods: string[]; path: string }>;

  beforeAll(async () => {
    t = await startApp();
    routes = [...routerRoutes(t.app.getHttpAdapter().getInstance())].map((r) => ({
      methods: (r.methods === 'all' ? METHODS : r.methods).map((m) => m.toLowerCase()),
      path: String(r.path),
    }));
  });
  afterAll(() => t.close());

  const position = (method: string, path: string) =>
    routes.findIndex((r) => r.methods.includes(method) && r.path === path);

  it.each(HOT)('%s %s is in the first half of the route table', (method, path) => {
    expect(routes.length).toBeGreaterThan(150);
    const at = position(method, path);
    expect(at).toBeGreaterThanOrEqual(0);
    expect({ route: `${method} ${path}`, at, within: at < routes.length / 2 }).toEqual({
      route: `${method} ${path}`,
      at,
      within: true,
    });
  });

  it('registers account and operator administration after every hot route', () => {
    const lastHot = Math.max(...HOT.map(([method, path]) => position(method, path)));
    const admin = routes.map((r, i) => ({ ...r, i })).filter((r) => ADMIN.test(r.path));
    expect(admin.length).toBeGreaterThan(5);
    expect(admin.filter((r) => r.i < lastHot).map((r) => r.path)).toEqual([]);
  });
});
