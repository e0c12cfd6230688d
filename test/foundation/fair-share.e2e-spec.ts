import { Module, Post } from '@nestjs/common';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import request from 'supertest';
import { SitesService } from '../../src/account/sites.service';
import { ApiKeysService } from '../../src/api-keys/api-keys.service';
import { CostsInFlight } from '../../src/common/rate-limit/cost-budget.guard';
import { ApiController, Route } from '../../src/common/http/route.decorator';
import { startApp, TestApp } from '../support/app';
import { loadOperations } from '../support/openapi-operations';
import { expectExactProblem, expectProblem } from '../support/problem';
import { agent, createTenant, Tenant, uniqueName } from '../support/tenant';

/** A render-cost route that holds its request until the test lets it go: the in-flight cap, deterministically. */
const held: Array<() => void> = [];

@ApiController('fair-share-probe', { tag: 'Probe', permissions: 'none' })
class FairShareProbeController {
  @Post('held')
  @Route({ auth: 'key', summary: 'Held render', ok: Object, cost: 'render', permission: 'email:write' })
  async hold(): Promise<{ ok: true }> {
    await new Promise<void>((release) => held.push(release));
    return { ok: true };
  }
}

@Module({ controllers: [FairShareProbeController] })
class FairShareProbeModule {}

const RENDER_MAX = 30;
const RENDER_CONCURRENCY = 4;

interface FloodCounts {
  total: number;
  byStatus: Record<string, number>;
  /** Every 429 carried a Retry-After of 1 to 60 s. */
  retryAfterOk: boolean;
  /** Requests of the last wave served: none once A's window budget is spent (a wave starts with nothing in flight). */
  lastWave: number;
}

/**
 * Waves of 50 requests at once over kept-alive connections (the next wave 100 ms after the last
 * answer of the one before: about 300 a second here), until told to stop; posts its counts.
 */
const FLOOD = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
const counts = { total: 0, byStatus: {}, retryAfterOk: true, lastWave: -1 };
let stop = false;
parentPort.on('message', () => (stop = true));
const once = () => new Promise((resolve) => {
  const req = http.request({ host: '127.0.0.1', port: workerData.port, method: 'POST', path: workerData.path, agent,
    headers: { 'x-api-key': workerData.key, 'content-type': 'application/json' } }, (res) => {
    res.resume();
    res.on('end', () => {
      counts.total++;
      counts.byStatus[res.statusCode] = (counts.byStatus[res.statusCode] || 0) + 1;
      if (res.statusCode === 429) {
        const s = Number(res.headers['retry-after']);
        if (!(Number.isInteger(s) && s >= 1 && s <= 60)) counts.retryAfterOk = false;
      }
      resolve();
    });
  });
  req.on('error', () => { counts.byStatus.error = (counts.byStatus.error || 0) + 1; resolve(); });
  req.end('{}');
});
(async () => {
  while (!stop) {
    const served = counts.byStatus[200] || 0;
    await Promise.all(Array.from({ length: 50 }, once));
    counts.lastWave = (counts.byStatus[200] || 0) - served;
    parentPort.postMessage(counts);
    await new Promise((r) => setTimeout(r, 100));
  }
  agent.destroy();
  parentPort.close();
})();
`;

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

async function timed(fn: () => Promise<request.Response>): Promise<{ res: request.Response; ms: number }> {
  const t0 = performance.now();
  const res = await fn();
  return { res, ms: performance.now() - t0 };
}

describe('fair share: budgets per account on expensive routes', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  const templates = new Map<Tenant, number>();
  const preview = (x: Tenant, key = x.key) =>
    agent(t, key).post(`/api/v2/sites/${x.siteName}/email/templates/${templates.get(x)}/preview`);
  const ordinary = (x: Tenant) => x.api.get(`/api/v2/sites/${x.siteName}/email/templates/${templates.get(x)}`);

  beforeAll(async () => {
    // A window budget smaller than the flood, so that its refusals are counted exactly; the
    // in-flight cap keeps its default.
    t = await startApp({
      env: {
        RATE_LIMIT_RENDER_MAX: String(RENDER_MAX),
        RATE_LIMIT_RENDER_CONCURRENCY: String(RENDER_CONCURRENCY),
        JOBS_ENABLED: 'false',
      },
      extraModules: [FairShareProbeModule],
    });
    // Listening, so that one test can hang up mid-request over a raw connection.
    await new Promise<void>((resolve) => t.server.listen(0, '127.0.0.1', resolve));
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
    for (const x of [a, b]) {
      const made = await x.api
        .post(`/api/v2/sites/${x.siteName}/email/templates`)
        .send({
          type: 'users.otp',
          name: 'Code',
          subject: 'Code: {{ code }}',
          html: '<p>{% for i in (1..40) %}{{ code }} {{ userName | upcase }} {% endfor %}</p>',
        })
        .expect(201);
      templates.set(x, made.body.id);
    }
  });
  afterAll(async () => {
    await t.db.query("DELETE FROM rate_limits WHERE key LIKE 'acct:%'");
    await t.close();
  });

  it("A's flood gets 429 rate_limited with Retry-After past its budget; B is never refused and keeps its latency", async () => {
    // B alone: ordinary reads and a few previews.
    const baseline: number[] = [];
    for (let i = 0; i < 20; i++) {
      const { res, ms } = await timed(() => ordinary(b));
      expect(res.status).toBe(200);
      baseline.push(ms);
    }
    for (let i = 0; i < 3; i++) expect((await preview(b)).status).toBe(200);

    // A floods previews, 50 at once, from a thread of its own (as another client would: the
    // test's event loop is the server's, and B's latency should measure the server's).
    const { port } = t.server.address() as AddressInfo;
    const flood = new Worker(FLOOD, {
      eval: true,
      workerData: { port, path: `/api/v2/sites/${a.siteName}/email/templates/${templates.get(a)}/preview`, key: a.key },
    });
    let counts: FloodCounts = { total: 0, byStatus: {}, retryAfterOk: true, lastWave: -1 };
    flood.on('message', (m: FloodCounts) => (counts = m));
    const floodDone = new Promise<void>((resolve, reject) => flood.once('exit', () => resolve()).once('error', reject));
    const until = async (ok: () => boolean) => {
      while (!ok()) await new Promise((r) => setTimeout(r, 5));
    };
    // B meanwhile, once A's requests are being refused.
    await until(() => (counts.byStatus['429'] ?? 0) > 0);
    const before = counts.total;
    const during: number[] = [];
    const bStatuses: number[] = [];
    // At least 20 reads, and on until one of A's waves has ended in between (the flood reports per
    // wave: on a loaded machine 20 quick reads can fit inside one wave).
    for (let i = 0; i < 20 || (counts.total === before && i < 400); i++) {
      const read = await timed(() => ordinary(b));
      bStatuses.push(read.res.status);
      during.push(read.ms);
      if (i % 4 === 0) bStatuses.push((await preview(b)).status);
    }
    const bDoneAt = counts.total;
    // A was still sending while B's requests ran, and goes on until its window budget is spent.
    await until(() => counts.total > bDoneAt && counts.lastWave === 0);
    flood.postMessage('stop');
    await floodDone;

    const served = counts.byStatus['200'] ?? 0;
    const refused = counts.byStatus['429'] ?? 0;
    console.log(
      `fair share: A sent ${counts.total} previews in waves of 50 (${served} served, ${refused} refused; by status ${JSON.stringify(counts.byStatus)}); ` +
        `B's read p50 ${median(baseline).toFixed(1)} ms alone, ${median(during).toFixed(1)} ms during A's flood ` +
        `(max ${Math.max(...during).toFixed(1)} ms); A's requests during B's: ${bDoneAt - before}`,
    );
    // The window's budget and no more, every other answer a 429 with a Retry-After.
    // One instance: the window is counted exactly, and only requests that got a slot count.
    expect(served).toBe(RENDER_MAX);
    expect(served + refused).toBe(counts.total);
    expect(counts.retryAfterOk).toBe(true);
    const last = await preview(a);
    const retryAfter = Number(last.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expectExactProblem(last, 429, 'rate_limited', 'Too many requests', `Retry after ${retryAfter} s`);
    // B: every request served while A was being refused; its latency within a generous bound
    // (a loaded 2-core machine: the figures are printed above).
    expect(bStatuses.length).toBeGreaterThanOrEqual(25);
    expect(bStatuses).toEqual(Array(bStatuses.length).fill(200));
    expect(bDoneAt - before).toBeGreaterThan(0);
    expect(median(during)).toBeLessThan(median(baseline) * 10 + 250);
  }, 90_000);

  it("another key of A's account shares its budget; A's ordinary routes still answer", async () => {
    const { plaintext } = await t.db.transaction((em) =>
      t.app.get(ApiKeysService).createInAccount(em, a.accountId, { name: 'second', siteIds: null, expiresAt: null }),
    );
    expectProblem(await preview(a, plaintext), 429, 'rate_limited');
    expect((await ordinary(a)).status).toBe(200);
    expect((await preview(b)).status).toBe(200);
  });

  it('at most RATE_LIMIT_<COST>_CONCURRENCY requests of an account in flight: the next is refused at once, others pass', async () => {
    // Fresh accounts: A's render window above is spent.
    const [c, d] = await Promise.all([createTenant(t), createTenant(t)]);
    const guard = t.app.get(CostsInFlight);
    const key = `acct:${c.accountId}:render`;
    const path = '/fair-share-probe/held';
    const until = async (ok: () => boolean) => {
      while (!ok()) await new Promise((r) => setTimeout(r, 5));
    };
    const inFlight = Array.from({ length: RENDER_CONCURRENCY - 1 }, () => c.api.post(path).then((r) => r));
    // The last slot goes to a client that hangs up while its request runs.
    const { port } = t.server.address() as AddressInfo;
    const hangUp = http.request({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'x-api-key': c.key } });
    hangUp.on('error', () => undefined);
    hangUp.end();
    await until(() => guard.running(key) === RENDER_CONCURRENCY);

    const refused = await c.api.post(path);
    expectExactProblem(refused, 429, 'rate_limited', 'Too many requests', 'Retry after 1 s');
    expect(refused.headers['retry-after']).toBe('1');
    // Its work goes on after the hang-up, so it keeps its slot until the handler is done.
    hangUp.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(guard.running(key)).toBe(RENDER_CONCURRENCY);
    expectProblem(await c.api.post(path), 429, 'rate_limited');
    // Another account is not held back by C's requests in flight.
    const other = d.api.post(path).then((r) => r);
    await until(() => guard.running(`acct:${d.accountId}:render`) === 1);

    held.splice(0).forEach((release) => release());
    expect((await Promise.all(inFlight)).map((r) => r.status)).toEqual(Array(RENDER_CONCURRENCY - 1).fill(200));
    expect((await other).status).toBe(200);
    await until(() => guard.running(key) === 0);

    const again = c.api.post(path).then((r) => r);
    await until(() => guard.running(key) === 1);
    held.splice(0).forEach((release) => release());
    expect((await again).status).toBe(200);
  });

  it('a request refused by a later step gives its slot back', async () => {
    const e = await createTenant(t);
    const guard = t.app.get(CostsInFlight);
    // A body that is not JSON: refused after the budget's guard, before the handler.
    const bad = await preview(e).set('content-type', 'application/json').send('{"data": ');
    expectProblem(bad, 400, bad.body.code);
    expect(guard.running(`acct:${e.accountId}:render`)).toBe(0);
  });
});

describe('fair share: imports an account may have waiting (NEWSLETTER_ACCOUNT_IMPORTS_MAX)', () => {
  let t: TestApp;

  beforeAll(async () => {
    // No job runner: queued imports stay queued. Two rows are past the synchronous limit.
    t = await startApp({
      env: { JOBS_ENABLED: 'false', NEWSLETTER_IMPORT_SYNC_ROWS: '1', NEWSLETTER_ACCOUNT_IMPORTS_MAX: '2' },
    });
  });
  afterAll(() => t.close());

  async function importTwo(x: Tenant): Promise<request.Response> {
    const nl = `/api/v2/sites/${x.siteName}/newsletter`;
    const list = await x.api.post(`${nl}/lists`).send({ name: 'Imports', doubleOptIn: false }).expect(201);
    return x.api
      .post(`${nl}/subscriptions/import`)
      .field('listIds', String(list.body.id))
      .attach('file', Buffer.from('email\none@example.com\ntwo@example.com\n'), 'people.csv');
  }

  it("an account's next import past the bound is a 429 with Retry-After; another account's is queued", async () => {
    const [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
    expect((await importTwo(a)).status).toBe(202);
    expect((await importTwo(a)).status).toBe(202);
    const refused = await importTwo(a);
    expectExactProblem(refused, 429, 'rate_limited', 'Too many requests', 'Retry after 10 s');
    expect(refused.headers['retry-after']).toBe('10');
    expect((await importTwo(b)).status).toBe(202);
    // The account's imports, not the site's: another site of A's account is refused too.
    const other = await t.db.transaction((em) =>
      t.app.get(SitesService).createInAccount(em, a.accountId, { name: uniqueName() }),
    );
    expectProblem(await importTwo({ ...a, siteName: other.name }), 429, 'rate_limited');
  });
});

describe('fair share: the OpenAPI document derives from @Route({ cost })', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ env: { JOBS_ENABLED: 'false' } });
  });
  afterAll(() => t.close());

  /** The expensive routes (grep the controllers for rendering, outbound calls, many rows, files). */
  const EXPECTED: Record<string, string> = {
    'post /api/v2/sites/{siteName}/email/send': 'render',
    'post /api/v2/sites/{siteName}/email/templates/{templateId}/preview': 'render',
    'post /api/v2/sites/{siteName}/newsletter/campaigns/{id}/test-send': 'outbound',
    'post /api/v2/sites/{siteName}/webhooks/{id}/test': 'outbound',
    'post /api/v2/sites/{siteName}/webhooks/{id}/deliveries/{deliveryId}/retry': 'outbound',
    'post /api/v2/sites/{siteName}/newsletter/subscriptions/import': 'import',
    'post /api/v2/sites/{siteName}/newsletter/subscriptions/sync': 'import',
    'post /api/v2/sites/{siteName}/newsletter/subscriptions/bulk': 'import',
    'post /api/v2/sites/{siteName}/media': 'upload',
    'post /api/v2/sender-domains': 'outbound',
    'post /api/v2/sender-domains/{id}/verify': 'outbound',
    'post /v1/{site_name}/media': 'upload',
    'post /v1/project/{organization_id}/{project_id}/media': 'upload',
  };

  it('each expensive operation names its budget and documents its 429 with it', async () => {
    const { doc } = await loadOperations(t.server);
    const paths = doc.paths as unknown as Record<
      string,
      Record<string, { 'x-sitebase-cost'?: string; responses: Record<string, { description: string }> }>
    >;
    const found: Record<string, string> = {};
    for (const [path, ops] of Object.entries(paths))
      for (const [method, op] of Object.entries(ops)) {
        const cost = op['x-sitebase-cost'];
        if (!cost) continue;
        found[`${method} ${path}`] = cost;
        expect(op.responses['429'].description).toContain(`\`${cost}\` budget`);
        expect(op.responses['429'].description).toContain(`RATE_LIMIT_${cost.toUpperCase()}_MAX`);
      }
    expect(found).toEqual(EXPECTED);
  });
});
