import { Client } from 'pg';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { workerDatabaseUrl } from '../support/databases';
import { tempMediaDir } from '../support/files';
import { loadOperations, OpenApiDocument, Operation } from '../support/openapi-operations';
import { operationUrl, ResourceFixtures, seedResources } from '../support/resource-fixtures';
import { queriesDuring, SentStatement } from '../support/statements';
import { createTenant, Tenant } from '../support/tenant';

/**
 * docs/performance.md, "Checked on every read": every GET operation of the app's own OpenAPI
 * document, with each of its filters and with a cursor, is read with a key (or a session), and
 * every statement it sends is planned with `EXPLAIN` while sequential scans are disabled: a plan
 * that still holds a `Seq Scan` of a table has no index that can serve that query, and fails
 * here (on a table of a few rows the planner would pick a scan anyway, so the plan it would
 * make at scale is what is asked). Each list is also read at limit 1 and limit 3: the number
 * of statements must not grow with the rows on the page (no query per row). A route added later
 * is covered the day it lands; a filter this table has no value for fails until it has one.
 */

/** Reads that are not the API's data: probes, the document, pages reached by signed tokens. */
const NOT_DATA = [/^\/health/, /\/newsletter\/(confirm|preferences|track\/open|track\/click)\//];

/** Reads that answer 404 until something is asked for (a deletion): their statements are planned all the same. */
const NONE_YET = [/\/account\/deletion$/, /\/users\/me\/deletion$/];

/** Tables small by nature, read whole on purpose (none yet). */
const SCANNED_ON_PURPOSE = new Set<string>();

/** A value each filter takes (one that matches fixtures where the filter is an id). */
function filterValue(f: ResourceFixtures, op: Operation, name: string): string | undefined {
  const { ids } = f;
  // A month around now: every fixture falls in it, and ranges of at most a year are accepted.
  const since = new Date(Date.now() - 30 * 86_400_000).toISOString();
  const until = new Date(Date.now() + 86_400_000).toISOString();
  const dates: Record<string, string> = { from: since, to: until, createdFrom: since, createdTo: until };
  if (name in dates) return dates[name];
  switch (name) {
    case 'limit':
    case 'cursor':
      return undefined; // read by the cursor variant
    case 'category':
      return op.path.includes('/media') ? String(ids.category) : 'guides';
    case 'tag':
      return op.path.includes('/media') ? String(ids.tag) : 'a';
    case 'contentType':
      return 'application/pdf';
    case 'original':
    case 'includeMachines':
    case 'inStock':
    case 'recurring':
      return 'true';
    case 'q':
      return 'fixture';
    case 'type':
      return op.path.includes('/email/') ? 'custom' : 'post';
    case 'author':
      return String(ids.user);
    case 'categoryId':
      return String(ids.productCategory);
    case 'minAmount':
      return '50';
    case 'maxAmount':
      return '500';
    case 'currency':
      return 'EUR';
    case 'email':
      return 'fixture@example.com';
    case 'emailContains':
      return 'fixture';
    case 'listId':
      return String(ids.newsletterList);
    case 'campaignId':
      return String(ids.campaign);
    case 'attributeName':
      return 'plan';
    case 'attributeValue':
      return 'pro';
    case 'done':
      return undefined;
    default: {
      const schema = op.queryParams.find((p) => p.name === name)?.schema;
      if (schema?.enum?.length) return String(schema.enum[0]);
      throw new Error(`${op.label}: no value for the filter ${name}: add it to filterValue`);
    }
  }
}

/** Filters that only work together. */
const PAIRS: Record<string, string[]> = { attributeName: ['attributeName', 'attributeValue'] };
const PAIRED = new Set(Object.values(PAIRS).flat());

interface Variant {
  label: string;
  query: Record<string, string>;
}

function variants(f: ResourceFixtures, op: Operation, required: string[]): Variant[] {
  const base = Object.fromEntries(required.map((n) => [n, filterValue(f, op, n) ?? '']));
  const out: Variant[] = [{ label: 'no filter', query: base }];
  for (const { name } of op.queryParams) {
    if (required.includes(name)) continue;
    if (PAIRED.has(name) && !PAIRS[name]) continue;
    const names = PAIRS[name] ?? [name];
    const query: Record<string, string> = {};
    for (const n of names) {
      const value = filterValue(f, op, n);
      if (value !== undefined) query[n] = value;
    }
    if (Object.keys(query).length) out.push({ label: names.join('+'), query: { ...base, ...query } });
  }
  return out;
}

interface Plan {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: Plan[];
}

function seqScans(plan: Plan, out: string[] = []): string[] {
  if (plan['Node Type'] === 'Seq Scan' && plan['Relation Name']) out.push(plan['Relation Name']);
  for (const child of plan.Plans ?? []) seqScans(child, out);
  return out;
}

/** Statements that read or change rows by a condition (the ones a plan can scan in). */
const PLANNED = /^\s*(select|with|update|delete)\b/i;

describe('every read: an index behind each filter and cursor, and no query per row', () => {
  const media = tempMediaDir('plans');
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let fixtures: ResourceFixtures;
  let operations: Operation[];
  let doc: OpenApiDocument;
  let planner: Client;
  let planned = 0;

  beforeAll(async () => {
    // No background work: every statement seen while a request runs is the request's. The key and
    // session limits' counters are written to PostgreSQL by a timer, in batches of every request
    // (rate-limit.e2e-spec counts those): off here, or a flush lands in one page's count.
    t = await startApp({
      env: {
        MEDIA_LOCAL_DIR: media.dir,
        RATE_LIMIT_PUBLIC_MAX: '1000000',
        RATE_LIMIT_KEY_MAX: '0',
        RATE_LIMIT_SESSION_MAX: '0',
        JOBS_ENABLED: 'false',
      },
    });
    [a, b] = [await createTenant(t), await createTenant(t)];
    fixtures = await seedResources(t, a);
    // More of each, so lists hold several rows; and another site's, so each read must pick its own.
    const more = [await seedResources(t, a, 1), await seedResources(t, a, 2)];
    await seedResources(t, b);
    // Rows that hang off the first set's resources, three of each.
    const { ids } = fixtures;
    const site = `/api/v2/sites/${a.siteName}`;
    for (const [i, copy] of more.entries()) {
      await a.api
        .patch(`${site}/content/${ids.content}`)
        .send({ title: `Fixture, edit ${i}` })
        .expect(200);
      await a.api.post(`${site}/collections/${ids.collection}/items`).send({ contentId: copy.ids.content }).expect(201);
      await a.api
        .post(`${site}/users/${ids.user}/credits/grant`)
        .send({ amount: 10, reason: `grant ${i}` })
        .expect(201);
      await t.db.query(
        `INSERT INTO webhook_deliveries (site_id, endpoint_id, event_type, payload, status)
         VALUES ($1, $2, 'webhook.test', '{}', 'failed')`,
        [a.siteId, ids.webhook],
      );
      await t.db.query(
        `INSERT INTO user_subscriptions (site_id, user_id, product_id, status, unit_amount, currency, interval,
           interval_count, current_period_start, current_period_end)
         SELECT site_id, $2, product_id, status, unit_amount, currency, interval, interval_count,
           current_period_start, current_period_end FROM user_subscriptions WHERE id = $1`,
        [ids.userSubscription, ids.user],
      );
    }
    await a.api.patch(`${site}/collections/${ids.collection}`).send({ startsAt: '2020-01-01T00:00:00Z' }).expect(200);
    for (const name of ['plans-second', 'plans-third'])
      await a.api
        .post('/api/v2/sites')
        .send({ name: `${name}-${a.siteName}`.slice(0, 60) })
        .expect(201);
    ({ doc, operations } = await loadOperations(t.server));
    planner = new Client({ connectionString: workerDatabaseUrl() });
    await planner.connect();
  });

  afterAll(async () => {
    console.log(`query plans: ${planned} statements planned`);
    await planner?.end();
    await t.close();
    media.remove();
  });

  const reads = () => operations.filter((op) => op.method === 'get' && !NOT_DATA.some((re) => re.test(op.path)));

  function get(op: Operation, query: Record<string, string>): request.Test {
    const r = request(t.server).get(operationUrl(fixtures, op)).query(query);
    return op.sessionOnly ? r.set('authorization', `Bearer ${fixtures.sessionToken}`) : r.set('x-api-key', a.key);
  }

  /** Sends the read once to warm its shape and caches, then again while its statements are recorded. */
  async function statementsOf(
    op: Operation,
    query: Record<string, string>,
  ): Promise<[request.Response, SentStatement[]]> {
    const warm = await get(op, query);
    const expected = NONE_YET.some((re) => re.test(op.path)) ? 404 : 200;
    if (warm.status !== expected) throw new Error(`${op.label} ${JSON.stringify(query)}: ${warm.status} ${warm.text}`);
    let res!: request.Response;
    const sent = await queriesDuring(async () => {
      res = await get(op, query);
    });
    return [res, sent];
  }

  async function scansOf(statement: SentStatement): Promise<string[]> {
    await planner.query('BEGIN');
    try {
      await planner.query('SET LOCAL enable_seqscan = off');
      const { rows } = await planner.query<{ 'QUERY PLAN': Array<{ Plan: Plan }> }>(
        `EXPLAIN (FORMAT JSON) ${statement.text}`,
        statement.values,
      );
      planned += 1;
      return seqScans(rows[0]['QUERY PLAN'][0].Plan);
    } finally {
      await planner.query('ROLLBACK');
    }
  }

  it('covers the reads of every module', () => {
    const paths = reads().map((op) => op.path);
    for (const part of [
      '/content',
      '/media',
      '/products',
      '/orders',
      '/users',
      '/contacts',
      '/webhooks',
      '/newsletter',
    ])
      expect(paths.some((p) => p.includes(part))).toBe(true);
  });

  it('plans every statement of every read, with each filter and a cursor, without a sequential scan', async () => {
    const found: string[] = [];
    for (const op of reads()) {
      const required = (doc.paths[op.path][op.method].parameters ?? [])
        .filter((p) => p.in === 'query' && p.required)
        .map((p) => p.name);
      const cases = variants(fixtures, op, required);
      // Page 2 of a list, through the cursor page 1 handed out.
      if (op.queryParams.some((p) => p.name === 'cursor')) {
        const first = await get(op, { limit: '1' });
        const next = (first.body as { nextCursor?: string | null }).nextCursor;
        if (next) cases.push({ label: 'cursor', query: { limit: '1', cursor: next } });
      }
      for (const c of cases) {
        const [, sent] = await statementsOf(op, c.query);
        for (const statement of sent.filter((s) => PLANNED.test(s.text))) {
          const scans = (await scansOf(statement)).filter((table) => !SCANNED_ON_PURPOSE.has(table));
          if (scans.length)
            found.push(`${op.label} (${c.label}): Seq Scan on ${scans.join(', ')}\n    ${statement.text}`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('reads a page in as many statements at limit 3 as at limit 1', async () => {
    const grew: string[] = [];
    let lists = 0;
    for (const op of reads().filter((o) => o.queryParams.some((p) => p.name === 'limit'))) {
      const [one, atOne] = await statementsOf(op, { limit: '1' });
      const [three, atThree] = await statementsOf(op, { limit: '3' });
      const rows = (three.body as { data: unknown[] }).data.length;
      expect({ op: op.label, page1: (one.body as { data: unknown[] }).data.length }).toEqual({
        op: op.label,
        page1: 1,
      });
      if (rows < 2) throw new Error(`${op.label}: the fixtures make ${rows} row(s); seed more to see a query per row`);
      lists += 1;
      if (atThree.length !== atOne.length)
        grew.push(`${op.label}: ${atOne.length} statements for 1 row, ${atThree.length} for ${rows}`);
    }
    expect(lists).toBeGreaterThan(20);
    expect(grew).toEqual([]);
  });
});
