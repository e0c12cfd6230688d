import { readFileSync } from 'node:fs';
import { METHODS } from 'node:http';
import { join } from 'node:path';
import request from 'supertest';
import { routerRoutes } from '../src/common/internals/express-router';
import { startApp, TestApp } from './support/app';
import { expectOrFix } from './support/matchers';

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

describe('the interface contract (routes.tsv)', () => {
  let t: TestApp;
  let registered: Set<string>;
  let documented: Set<string>;
  /** `METHOD /path/{name}` of every express route, with its real parameter names. */
  let routes: Map<string, string[]>;
  let doc: { paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>> };

  beforeAll(async () => {
    t = await startApp();
    // Express's route table, with `app.all`'s routes under every verb.
    const table = [...routerRoutes(t.app.getHttpAdapter().getInstance())].flatMap((r) =>
      typeof r.path === 'string' ? [{ path: r.path, methods: r.methods === 'all' ? METHODS : r.methods }] : [],
    );
    registered = new Set(table.flatMap((r) => r.methods.map((m) => shape(m, r.path))));
    routes = new Map(
      table.flatMap((r) =>
        // Swagger UI's own pages and the local media files (`/files/*path`) are not operations.
        !r.path.startsWith('/docs') && !r.path.includes('*')
          ? r.methods.map((m): [string, string[]] => [
              `${m} ${r.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`,
              [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((x) => x[1]),
            ])
          : [],
      ),
    );
    doc = (await request(t.server).get('/docs/openapi.json').expect(200)).body;
    documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => shape(m, path))),
    );
  });
  afterAll(() => t.close());

  it('lists all 144 routes, and pending ones are real interface routes', () => {
    expect(ROUTES).toHaveLength(144);
    const known = new Set(ROUTES.map((r) => `${r.method} ${r.path}`));
    for (const p of PENDING)
      expect(
        known.has(p)
          ? p
          : `unknown pending route: ${p}: test/fixtures/pending-routes.txt lists only "METHOD /path" lines of ` +
              'test/fixtures/routes.tsv: correct it to one, or remove it',
      ).toBe(p);
  });

  const built = ROUTES.filter((r) => !PENDING.has(`${r.method} ${r.path}`));
  it.each(built.map((r) => [`${r.method} ${r.path}`, r] as const))('%s is registered and documented', (_name, r) => {
    expect(
      registered.has(shape(r.method, r.path))
        ? 'registered'
        : `missing from the app: declare ${r.method} ${r.path} in a controller of its module (@ApiController ` +
            'path + verb + @Route) and list the module in FEATURE_MODULES (src/app.module.ts); while it is ' +
            'not built, list it in test/fixtures/pending-routes.txt',
    ).toBe('registered');
    expect(
      documented.has(shape(r.method, r.path))
        ? 'documented'
        : 'missing from OpenAPI: declare the handler with @ApiController and @Route (no @ApiExcludeEndpoint), ' +
            'which put it in the document',
    ).toBe('documented');
  });

  it("documents each operation with its route's real path and exactly its path parameters", () => {
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
    );
    // The same operations both ways, parameter names included: a document that named a
    // parameter differently from the route would send clients to a path the app reads wrongly.
    expectOrFix(
      'Each Express route is an operation of the document and each operation a route, by the same path and ' +
        'parameter names: serve a route only from a controller (@ApiController and @Route, not app.use or ' +
        'Express), and name its `:param`s in @ApiController/@Get(...) as the document does',
      () => expect(operations.map((o) => o.key).sort()).toEqual([...routes.keys()].sort()),
    );
    for (const { key, op } of operations) {
      const declared = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      expectOrFix(
        `${key}: the document's path parameters come from @ApiController's path (its \`:name\`s) and the ` +
          "handler's @Param() DTO (src/common/http/params.ts): declare each `:name` of the route there once, " +
          'under the same name (docs/openapi.md)',
        () => {
          expect({ key, params: [...declared].sort() }).toEqual({ key, params: [...routes.get(key)!].sort() });
          expect({ key, params: declared.length }).toEqual({ key, params: new Set(declared).size });
        },
      );
    }
  });

  // A pending route that is built must leave the list, so the list only ever shrinks to zero.
  const pending = ROUTES.filter((r) => PENDING.has(`${r.method} ${r.path}`));
  it('every route still listed as pending is not registered', () => {
    const builtButListed = pending
      .filter((r) => registered.has(shape(r.method, r.path)))
      .map((r) => `${r.method} ${r.path}: registered, remove it from pending-routes.txt`);
    expect(builtButListed).toEqual([]);
  });

  it('reports how many routes are pending', () => {
    console.log(`Interface routes built: ${built.length}/144, pending: ${pending.length}`);
    expect(built.length + pending.length).toBe(144);
    // Every route of the interface is built: the list is empty for good.
    expectOrFix(
      'Every interface route is built: build these (a controller of its module, listed in FEATURE_MODULES of ' +
        'src/app.module.ts) and remove them from test/fixtures/pending-routes.txt',
      () => expect(pending).toEqual([]),
    );
  });
});
