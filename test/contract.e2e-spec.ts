import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { startApp, TestApp } from './support/app';

interface InterfaceRoute {
  version: string;
  method: string;
  path: string;
  group: string;
}

const fixtures = join(__dirname, 'fixtures');
const ROUTES: InterfaceRoute[] = readFileSync(join(fixtures, 'routes.tsv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const [version, method, path, group] = line.split('\t');
    return { version, method, path, group };
  });
const PENDING = new Set(
  readFileSync(join(fixtures, 'pending-routes.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#')),
);

/** `/a/{x}/b` and `/a/:y/b` both become `/a/:/b`: two interface routes of one shape share a handler. */
const shape = (method: string, path: string) =>
  `${method.toUpperCase()} ${path.replace(/\{[^}]+\}|:[A-Za-z_]+/g, ':')}`;

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

describe('the interface contract (routes.tsv)', () => {
  let t: TestApp;
  let registered: Set<string>;
  let documented: Set<string>;

  beforeAll(async () => {
    t = await startApp();
    const express = t.app.getHttpAdapter().getInstance() as { router: { stack: RouterLayer[] } };
    registered = new Set(
      express.router.stack.flatMap((layer) =>
        layer.route ? Object.keys(layer.route.methods).map((m) => shape(m, layer.route!.path)) : [],
      ),
    );
    const doc = (await request(t.server).get('/docs/openapi.json').expect(200)).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => shape(m, path))),
    );
  });
  afterAll(() => t.close());

  it('lists all 144 routes, and pending ones are real interface routes', () => {
    expect(ROUTES).toHaveLength(144);
    const known = new Set(ROUTES.map((r) => `${r.method} ${r.path}`));
    for (const p of PENDING) expect(known.has(p) ? p : `unknown pending route: ${p}`).toBe(p);
  });

  const built = ROUTES.filter((r) => !PENDING.has(`${r.method} ${r.path}`));
  it.each(built.map((r) => [`${r.method} ${r.path}`, r] as const))('%s is registered and documented', (_name, r) => {
    expect(registered.has(shape(r.method, r.path)) ? 'registered' : 'missing from the app').toBe('registered');
    expect(documented.has(shape(r.method, r.path)) ? 'documented' : 'missing from OpenAPI').toBe('documented');
  });

  // A pending route that is built must leave the list, so the list only ever shrinks to zero.
  const pending = ROUTES.filter((r) => PENDING.has(`${r.method} ${r.path}`));
  it.each(pending.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s is still pending (not registered)',
    (_name, r) => {
      expect(
        registered.has(shape(r.method, r.path)) ? 'registered: remove it from pending-routes.txt' : 'pending',
      ).toBe('pending');
    },
  );

  it('reports how many routes are pending', () => {
    console.log(`Interface routes built: ${built.length}/144, pending: ${pending.length}`);
    expect(built.length + pending.length).toBe(144);
  });
});
