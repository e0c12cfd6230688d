import request from 'supertest';
import {
  prefilterRoutes,
  routeBySegmentCount,
  routedPath,
  routeShape,
  segmentCount,
} from '../../src/common/http/route-prefilter';
import { startApp, TestApp } from '../support/app';

interface Layer {
  route?: { path: string };
  rawPath?: unknown;
  match(path: string): unknown;
  unfilteredMatch?(path: string): unknown;
}

/** Request paths made from a route path: its params filled in several ways, and near misses. */
function variants(path: string): string[] {
  const filled = (value: string) => path.replace(/:[A-Za-z_$][\w$]*/g, value);
  const base = [filled('demo'), filled('42'), filled('a.b-c_d'), filled('%41%2Fx'), filled('%E0%A4%A')];
  const out = new Set<string>();
  for (const p of base) {
    out.add(p);
    out.add(p.toUpperCase());
    out.add(`${p}/`);
    out.add(`${p}//`);
    out.add(`${p}/extra`);
    out.add(p.replace(/\/[^/]*$/, ''));
    out.add(p.replace(/^\/[^/]+/, ''));
    out.add(p.replace('/', '//'));
    out.add(`${p}.json`);
    out.add(p.replace(/[a-z]/, (c) => c.toUpperCase()));
  }
  out.add(filled(''));
  return [...out];
}

describe('Route prefilter: a cheap segment test before each route expression', () => {
  let t: TestApp;
  let stack: Layer[];

  beforeAll(async () => {
    t = await startApp();
    stack = (t.app.getHttpAdapter().getInstance() as unknown as { router: { stack: Layer[] } }).router.stack;
  });
  afterAll(() => t.close());

  it('covers the routes it understands and leaves the others to their own matcher', () => {
    const routes = stack.filter((l) => l.route);
    const covered = routes.filter((l) => l.unfilteredMatch);
    expect(routes.length).toBeGreaterThan(150);
    // Every route of the API is plain segments and :params; only catch-alls keep their matcher alone.
    const left = routes.filter((l) => !l.unfilteredMatch).map((l) => String(l.rawPath));
    expect(left.every((p) => /[*{]/.test(p))).toBe(true);
    expect(covered.length).toBeGreaterThan(routes.length - 5);
    // Running it again changes nothing.
    expect(prefilterRoutes(stack)).toEqual({ covered: 0, left });
  });

  it('answers exactly what each route’s own matcher answers, for every route path and its near misses', () => {
    const covered = stack.filter((l) => l.unfilteredMatch);
    const paths = [...new Set(covered.flatMap((l) => variants(String(l.rawPath))))];
    paths.push('/', '', '/api', '/api/v2/sites', '/API/V2/SITES/demo/CONTENT', '/v1/demo/pages/20/0/');
    let compared = 0;
    let matched = 0;
    const differ: string[] = [];
    for (const layer of covered) {
      for (const path of paths) {
        let own: unknown;
        let filtered: unknown;
        try {
          own = layer.unfilteredMatch!(path);
        } catch (err) {
          own = `throws ${(err as Error).message}`;
        }
        try {
          filtered = layer.match(path);
        } catch (err) {
          filtered = `throws ${(err as Error).message}`;
        }
        compared += 1;
        if (own) matched += 1;
        if (JSON.stringify(own) !== JSON.stringify(filtered)) differ.push(`${String(layer.rawPath)} <- ${path}`);
      }
    }
    expect(differ).toEqual([]);
    expect(compared).toBeGreaterThan(100_000);
    expect(matched).toBeGreaterThan(covered.length);
  });

  it('routes each request over the table less the routes with another number of segments, in the same order', () => {
    const covered = stack.filter((l) => l.unfilteredMatch);
    const paths = [...new Set(covered.flatMap((l) => variants(String(l.rawPath))))];
    paths.push('/', '/api', '/api/v2/sites', '/v1/demo/pages/20/0/', '//', '/a//b/');
    // A table like the app's, routed by a handle that only records which table it was given.
    let given: unknown[] = [];
    const table = {
      stack,
      handle(this: { stack: unknown[] }, _req: { url?: unknown }, _res: unknown, _done: unknown) {
        given = this.stack;
      },
    };
    routeBySegmentCount(table);
    let skipped = 0;
    const wrong: string[] = [];
    for (const path of paths) {
      for (const url of [path, `${path}?q=1/2/3`]) {
        table.handle({ url }, undefined, undefined);
        expect(table.stack).toBe(stack);
        // The same layers in the same order, less some...
        let at = 0;
        for (const layer of given) at = stack.indexOf(layer as Layer, at) + 1;
        expect(at).toBeGreaterThan(0);
        // ...and every one left out is a route that does not match this path.
        const kept = new Set(given);
        for (const layer of stack.filter((l) => !kept.has(l))) {
          skipped += 1;
          if (!layer.route || layer.match(path) !== false) wrong.push(`${String(layer.rawPath)} <- ${url}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(skipped).toBeGreaterThan(paths.length * 100);
    // A target parseurl would parse the slow way walks the whole table.
    for (const url of ['http://host/api/v2/sites', '/a b', '/a#b', '/a?b#c', '*']) {
      table.handle({ url }, undefined, undefined);
      expect(given).toBe(stack);
    }
  });

  it('counts segments and reads the routed path as the router does', () => {
    for (const path of ['/', '/a', '/a/', '/a//', '//a/b', '/a/b/c/', '/api/v2/sites/demo/content/1'])
      expect(segmentCount(path)).toBe(
        path.split('/').length - (path.split('/').length > 2 && path.endsWith('/') ? 1 : 0),
      );
    expect(routedPath('/a/b?c=/d')).toBe('/a/b');
    expect(routedPath('/a/b?c?d')).toBe('/a/b');
    expect(routedPath('/a/b')).toBe('/a/b');
    expect(routedPath('/a/b?c#d')).toBeNull();
    expect(routedPath('http://x/a')).toBeNull();
  });

  it('answers routes of every depth through the real app', async () => {
    await request(t.app.getHttpServer()).get('/health').expect(200);
    await request(t.app.getHttpServer()).get('/HEALTH/').expect(200);
    await request(t.app.getHttpServer()).get('/health?x=/a/b/c').expect(200);
    const missing = await request(t.app.getHttpServer()).get('/api/v2/sites/demo/no/such/route/at/all');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    await request(t.app.getHttpServer()).get('/api/v2/sites/no-such-site/content').expect(404);
  });

  it('reads a route path into its segments and literals, or refuses what it does not understand', () => {
    expect(routeShape('/api/v2/sites/:siteName/content/:id')).toEqual({
      segments: 7,
      literals: [
        [1, 'api'],
        [2, 'v2'],
        [3, 'sites'],
        [5, 'content'],
      ],
    });
    expect(routeShape('/a/')).toEqual({ segments: 2, literals: [[1, 'a']] });
    for (const path of ['/files/*path', '/a{/:b}', '/a/:b-:c', '/a/b:c', '/a/(x)', ['/a'], /a/, 'a/b'])
      expect(routeShape(path)).toBeNull();
  });
});
