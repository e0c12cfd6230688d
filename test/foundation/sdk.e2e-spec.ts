import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import request from 'supertest';
import { createSitebaseFor, SitebaseOptions } from '../../clients/typescript/src/client';
import { SitebaseProblem } from '../../clients/typescript/src/problem';
import { ContentItemEntity } from '../../src/content/entities/content-item.entity';
import { OrderEntity } from '../../src/orders/entities/order.entity';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { SessionsService } from '../../src/users/auth/sessions.service';
import type { paths } from '../generated/openapi';
import { withClient } from '../support/api-client';

const ROOT = join(__dirname, '..', '..');
const SDK = join(ROOT, 'clients', 'typescript');
const SNAPSHOT = join(SDK, 'openapi.json');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** The README's SDK example: the ```js block after the "## TypeScript SDK" heading. */
function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## TypeScript SDK'));
  const block = /```js\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README.md has no ```js block under "## TypeScript SDK"');
  return block[1];
}

/**
 * The SDK (clients/typescript, docs/openapi.md): types generated from the document the server
 * serves, and its hand-written layer (auth, Idempotency-Key and retries, pagination, problems)
 * against the real app. The client tests (*.client.e2e-spec.ts) call every operation through it.
 */
describe('the TypeScript SDK (clients/typescript)', () => {
  const s = withClient(2);
  const sdk = (options: Partial<SitebaseOptions> = {}) =>
    createSitebaseFor<paths>({ baseUrl: s.contract.baseUrl, apiKey: s.a.key, ...options });
  const site = () => ({ path: { siteName: s.a.siteName } });

  it('is generated from the document the server serves (clients/typescript/openapi.json is current)', async () => {
    const served = (await request(s.t.server).get('/docs/openapi.json').expect(200)).text;
    const document = `${JSON.stringify(JSON.parse(served), null, 2)}\n`;
    if (process.env.UPDATE_OPENAPI_CLIENT === '1') writeFileSync(SNAPSHOT, document);
    // A route or DTO changed without the SDK's copy: run `npm run openapi:client`.
    expect(
      readFileSync(SNAPSHOT, 'utf8') === document
        ? 'up to date'
        : 'stale: run `npm run openapi:client` (it rewrites clients/typescript/openapi.json and ' +
            'test/generated/openapi.d.ts) and commit both',
    ).toBe('up to date');
  });

  describe('built from a clean checkout (its tracked files and the root node_modules, no network)', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'sitebase-sdk-'));
      const copy = join(dir, 'clients', 'typescript');
      cpSync(SDK, copy, {
        recursive: true,
        filter: (src) => !src.startsWith(join(SDK, 'dist')) && !src.startsWith(join(SDK, 'src', 'generated')),
      });
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
      execFileSync(process.execPath, ['scripts/generate.mjs'], { cwd: copy, stdio: 'pipe' });
      execFileSync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: copy, stdio: 'pipe' });
    }, 120000);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('emits dist/ with its declarations, and they type-check a use and refuse a wrong one', () => {
      const dist = join(dir, 'clients', 'typescript', 'dist');
      for (const file of ['index.js', 'index.d.ts', 'client.js', 'generated/openapi.d.ts']) {
        expect(existsSync(join(dist, file)) ? file : `missing ${file}`).toBe(file);
      }
      writeFileSync(
        join(dir, 'use.ts'),
        [
          "import { createSitebase, SitebaseProblem } from './clients/typescript/dist/index.js';",
          "const sb = createSitebase({ baseUrl: 'http://localhost:3000', apiKey: 'sb_live_x' });",
          'export async function titles(): Promise<string[]> {',
          '  const out: string[] = [];',
          "  for await (const item of sb.paginate('/api/v2/sites/{siteName}/content', { params: { path: { siteName: 'demo' } } })) out.push(item.title);",
          "  const { data } = await sb.POST('/api/v2/sites/{siteName}/content', { params: { path: { siteName: 'demo' } }, body: { title: 'x' } });",
          '  out.push(data.slug);',
          '  // @ts-expect-error not an operation of the document',
          "  await sb.GET('/api/v2/nothing');",
          '  // @ts-expect-error a create needs its title',
          "  await sb.POST('/api/v2/sites/{siteName}/content', { params: { path: { siteName: 'demo' } }, body: {} });",
          '  // @ts-expect-error a single item is not a paginated list',
          "  sb.paginate('/api/v2/sites/{siteName}/content/{id}', { params: { path: { siteName: 'demo', id: '1' } } });",
          '  return out.concat(new SitebaseProblem({ type: "t", title: "t", status: 400, code: "c" }).code);',
          '}',
        ].join('\n'),
      );
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            noEmit: true,
            strict: true,
            skipLibCheck: true,
            module: 'node20',
            moduleResolution: 'node16',
            target: 'ES2022',
            lib: ['ES2023', 'DOM', 'DOM.Iterable'],
            types: [],
          },
          files: ['use.ts'],
        }),
      );
      // An unused @ts-expect-error fails too: each wrong use must be refused.
      const tsc = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: dir, encoding: 'utf8' });
      expect(tsc.stdout + tsc.stderr).toBe('');
      expect(tsc.status).toBe(0);
    }, 60000);

    it("runs the README's example (its origin and site swapped for the test server's)", async () => {
      const example = readmeExample();
      expect(example).toContain("'http://localhost:3000'");
      expect(example).toContain("'demo'");
      expect(example.trim().split('\n')).toHaveLength(5);
      writeFileSync(
        join(dir, 'example.mjs'),
        example.replace("'http://localhost:3000'", `'${s.contract.baseUrl}'`).replace("'demo'", `'${s.b.siteName}'`),
      );
      // Asynchronous: the test server answers from this process.
      const out = await new Promise<string>((resolve, reject) => {
        execFile(
          process.execPath,
          ['example.mjs'],
          { cwd: dir, env: { ...process.env, SITEBASE_KEY: s.b.key } },
          (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
        );
      });
      const rows = await s.t.db.getRepository(ContentItemEntity).findBy({ siteId: s.b.siteId });
      expect(rows.map((r) => r.title)).toEqual(['Hello from the SDK']);
      expect(out.trim().split('\n')).toEqual([`${rows[0].id} Hello from the SDK`]);
    }, 30000);
  });

  it('sends the key as x-api-key and a session as Bearer; without either, a typed 401', async () => {
    const keyed = await sdk().GET('/api/v2/sites/{siteName}', { params: site() });
    expect([keyed.response.status, keyed.data.name]).toEqual([200, s.a.siteName]);

    const user = await s.t.db
      .getRepository(SiteUserEntity)
      .save({ siteId: s.a.siteId, email: 'sdk-session@example.com', name: 'Sdk', status: 'active', metadata: {} });
    const { token } = await s.t.db.transaction((em) => s.t.app.get(SessionsService).create(em, user, {}));
    const me = await sdk({ apiKey: undefined, session: token }).GET('/api/v2/sites/{siteName}/users/me', {
      params: site(),
    });
    expect([me.response.status, me.data.id, me.data.email]).toEqual([200, user.id, 'sdk-session@example.com']);

    const anonymous = sdk({ apiKey: undefined });
    const refused = await problemOf(anonymous.GET('/api/v2/sites/{siteName}', { params: site() }));
    expect([refused.status, refused.code]).toEqual([401, 'missing_credential']);
  });

  it('throws problems as SitebaseProblem with status, code, errors and requestId', async () => {
    const invalid = await problemOf(
      sdk().POST('/api/v2/sites/{siteName}/content', {
        params: site(),
        body: { title: 'x', status: 'nonsense' as never },
      }),
    );
    expect(invalid).toBeInstanceOf(SitebaseProblem);
    expect(invalid).toEqual(
      expect.objectContaining({
        name: 'SitebaseProblem',
        status: 400,
        code: 'validation_failed',
        errors: [expect.objectContaining({ path: 'status' })],
        requestId: invalid.response!.headers.get('x-request-id'),
      }),
    );
    expect(invalid.requestId).toMatch(/\S{8,}/);
    // The message names the invalid fields, not only the summary of the problem.
    expect(invalid.message).toMatch(/^400 validation_failed: .+ \(status: must be one of .+\)$/);
    // What an uncaught problem or console.log prints: the problem, not the Response (100+ lines).
    const printed = inspect(invalid);
    expect(printed).toContain(`SitebaseProblem: ${invalid.message}`);
    expect(printed).toContain('"code": "validation_failed"');
    expect(printed).toContain('"path": "status"');
    expect(printed).toContain(`"requestId": "${invalid.requestId}"`);
    expect(printed).not.toMatch(/Response|Headers|bodyUsed/);
    expect(printed.split('\n').length).toBeLessThan(40);
    // The Response stays reachable, outside the enumerable fields and the JSON.
    expect(invalid.response).toBeInstanceOf(Response);
    expect(Object.keys(invalid)).not.toContain('response');
    expect(JSON.parse(JSON.stringify(invalid))).toEqual({
      name: 'SitebaseProblem',
      type: invalid.type,
      title: invalid.title,
      status: 400,
      code: 'validation_failed',
      detail: invalid.detail,
      errors: invalid.errors,
      requestId: invalid.requestId,
      ...(invalid.totalErrors === undefined ? {} : { totalErrors: invalid.totalErrors }),
    });

    const missing = await problemOf(
      sdk().GET('/api/v2/sites/{siteName}/orders/{id}', {
        params: { path: { siteName: s.a.siteName, id: 999999999 } },
      }),
    );
    expect([missing.status, missing.code, missing.errors]).toEqual([404, 'not_found', []]);
    // openapi-fetch's own shape stays available: the problem as a typed `error`.
    const raw = await sdk().raw.GET('/api/v2/sites/{siteName}/orders/{id}', {
      params: { path: { siteName: s.a.siteName, id: 999999999 } },
    });
    expect([raw.response.status, raw.error?.code]).toEqual([404, 'not_found']);
  });

  it('walks a cursor-paginated list page by page with for await', async () => {
    const api = sdk({ apiKey: s.b.key });
    const where = { path: { siteName: s.b.siteName } };
    const made: number[] = [];
    for (let i = 0; i < 5; i++) {
      made.push((await api.POST('/api/v2/sites/{siteName}/products', { params: where, body: product(i) })).data.id);
    }
    const pages: string[] = [];
    api.use({
      onRequest: ({ request: req }) => {
        pages.push(new URL(req.url).search);
      },
    });
    const seen: number[] = [];
    for await (const item of api.paginate('/api/v2/sites/{siteName}/products', {
      params: { ...where, query: { limit: 2 } },
    })) {
      seen.push(item.id);
    }
    const rows = await s.t.db.query<Array<{ id: string }>>('SELECT id FROM products WHERE site_id = $1', [s.b.siteId]);
    expect(seen.sort((x, y) => x - y)).toEqual(made.sort((x, y) => x - y));
    expect(rows.map((r) => Number(r.id)).sort((x, y) => x - y)).toEqual(made);
    // Three pages of at most two, each asking for the cursor the previous one gave.
    expect(pages).toHaveLength(3);
    expect(pages[0]).toBe('?limit=2');
    expect(pages.slice(1).every((q) => /^\?limit=2&cursor=[^&]+$/.test(q))).toBe(true);
  });

  it('gives each POST a random Idempotency-Key and reuses it when retrying a lost answer: one order, replayed', async () => {
    const sent: string[] = [];
    let lose = 1;
    const api = sdk({
      retry: { backoffMs: () => 10 },
      fetch: async (req) => {
        sent.push(req.headers.get('idempotency-key') ?? '');
        const res = await fetch(req);
        // The server did the work; its answer is lost on the way back.
        if (lose-- > 0) throw new TypeError('fetch failed');
        return res;
      },
    });
    const mug = await api.POST('/api/v2/sites/{siteName}/products', { params: site(), body: product(9) });
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(sent[1]).toBe(sent[0]);
    const productKey = sent[0];

    sent.length = 0;
    lose = 1;
    const order = await api.POST('/api/v2/sites/{siteName}/orders', {
      params: site(),
      body: { lines: [{ productId: mug.data.id, quantity: 1 }], customer: { email: 'sdk@example.com' } },
    });
    expect(order.response.status).toBe(201);
    expect(order.response.headers.get('idempotent-replayed')).toBe('true');
    expect([sent.length, sent[1]]).toEqual([2, sent[0]]);
    expect(sent[0]).not.toBe(productKey);
    expect(await s.t.db.getRepository(OrderEntity).countBy({ siteId: s.a.siteId })).toBe(1);

    // Another logical call has another key; a key the caller gives is kept.
    sent.length = 0;
    await api.POST('/api/v2/sites/{siteName}/orders', {
      params: { ...site(), header: { 'Idempotency-Key': 'mine-1' } },
      body: { lines: [{ productId: mug.data.id, quantity: 1 }], customer: { email: 'sdk@example.com' } },
    });
    expect(sent).toEqual(['mine-1']);
    expect(await s.t.db.getRepository(OrderEntity).countBy({ siteId: s.a.siteId })).toBe(2);
  });

  it("adding a variant answers the product (as its summary says): the order line takes the variant's id from variants", async () => {
    const api = sdk();
    const tee = await api.POST('/api/v2/sites/{siteName}/products', {
      params: site(),
      body: { ...product(21), option1: 'Size' },
    });
    const added = await api.POST('/api/v2/sites/{siteName}/products/{id}/variants', {
      params: { path: { ...site().path, id: tee.data.id } },
      body: { option1Value: 'M', sku: 'SDK-TEE-M' },
    });
    // The answer is the product: its id is the product's, the variant is in `variants`.
    expect(added.data.id).toBe(tee.data.id);
    const variant = added.data.variants.find((v) => v.sku === 'SDK-TEE-M')!;
    expect(variant.id).not.toBe(tee.data.id);
    const order = await api.POST('/api/v2/sites/{siteName}/orders', {
      params: site(),
      body: {
        lines: [{ productId: tee.data.id, variantId: variant.id, quantity: 1 }],
        customer: { email: 'sdk@example.com' },
      },
    });
    expect(order.data.lines[0].variantId).toBe(variant.id);
    // The document's summary, which the SDK's types carry as the operation's doc, says so.
    const doc = JSON.parse(readFileSync(join(__dirname, '../../clients/typescript/openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, { summary: string }>>;
    };
    expect(doc.paths['/api/v2/sites/{siteName}/products/{id}/variants'].post.summary).toMatch(/answers the product/);
  });

  it('retries 429 and 503 that say Retry-After, up to its bound; a PATCH is not repeated after a network error', async () => {
    const answers: Array<number | 'lost'> = [];
    const seen: string[] = [];
    const scripted = (script: Array<{ status: number; retryAfter?: string } | 'lost'>) => async (req: Request) => {
      seen.push(`${req.method} ${req.headers.get('idempotency-key') ?? '-'}`);
      const next = script.shift();
      if (next === 'lost') throw new TypeError('fetch failed');
      if (next) {
        answers.push(next.status);
        return new Response(JSON.stringify({ type: 't', title: 'Busy', status: next.status, code: 'busy' }), {
          status: next.status,
          headers: {
            'content-type': 'application/problem+json',
            ...(next.retryAfter ? { 'retry-after': next.retryAfter } : {}),
          },
        });
      }
      return fetch(req);
    };
    const started = Date.now();
    const ok = await sdk({
      fetch: scripted([
        { status: 429, retryAfter: '1' },
        { status: 503, retryAfter: new Date(Date.now()).toUTCString() },
      ]),
    }).GET('/api/v2/sites/{siteName}', { params: site() });
    expect([ok.response.status, answers, seen.length]).toEqual([200, [429, 503], 3]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);

    // Bounded: a third busy answer is the caller's, as is a Retry-After past maxDelayMs or none at all.
    seen.length = 0;
    const busy = { status: 503, retryAfter: '0' };
    const exhausted = await problemOf(
      sdk({ fetch: scripted([busy, busy, busy]) }).GET('/api/v2/sites/{siteName}', { params: site() }),
    );
    expect([exhausted.status, exhausted.code, seen.length]).toEqual([503, 'busy', 3]);
    seen.length = 0;
    const long = await problemOf(
      sdk({ fetch: scripted([{ status: 429, retryAfter: '60' }]) }).GET('/api/v2/sites/{siteName}', { params: site() }),
    );
    expect([long.status, seen.length]).toEqual([429, 1]);
    seen.length = 0;
    const none = await problemOf(
      sdk({ fetch: scripted([{ status: 503 }]) }).GET('/api/v2/sites/{siteName}', { params: site() }),
    );
    expect([none.status, seen.length]).toEqual([503, 1]);

    seen.length = 0;
    const patch = await sdk({ fetch: scripted(['lost']) })
      .PATCH('/api/v2/sites/{siteName}', { params: site(), body: { title: 'Not twice' } })
      .catch((e: unknown) => e);
    expect([(patch as Error).message, seen]).toEqual(['fetch failed', ['PATCH -']]);
    seen.length = 0;
    const get = await sdk({ fetch: scripted(['lost', 'lost']) }).GET('/api/v2/sites/{siteName}', { params: site() });
    expect([get.response.status, seen]).toEqual([200, ['GET -', 'GET -', 'GET -']]);
  }, 20000);
});

/** The SitebaseProblem a call throws (a 2xx fails the test). */
async function problemOf(call: Promise<unknown>): Promise<SitebaseProblem> {
  const outcome = await call.then(
    () => 'answered 2xx',
    (e: unknown) => e,
  );
  expect(outcome).toBeInstanceOf(SitebaseProblem);
  return outcome as SitebaseProblem;
}

function product(i: number) {
  return {
    name: `SDK product ${i}`,
    unitAmount: 1000 + i,
    currency: 'EUR' as const,
    quantityAvailable: 10,
    recurring: null,
  };
}
