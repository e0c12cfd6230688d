import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { fakeDns } from '../support/dns';
import { snapshotDatabase } from '../support/db-snapshot';
import { tempMediaDir } from '../support/files';
import { exampleBody, loadOperations, OpenApiDocument, Operation, resolve } from '../support/openapi-operations';
import { expectOrFix } from '../support/matchers';
import { pathParamsWithoutFixture } from '../support/path-fixtures';
import { expectProblem } from '../support/problem';
import { operationUrl, paramValue, requiredQuery, ResourceFixtures, seedResources } from '../support/resource-fixtures';
import { createTenant, Tenant, uniqueName, agent } from '../support/tenant';

/**
 * Tenant isolation over every operation of the app's own OpenAPI document (docs/testing.md,
 * "The isolation matrix"). Account X holds sites A and C, account Y holds site B; each site has
 * one of every resource (resource-fixtures.ts). Every operation is called across each boundary
 * (another site's ids, no credential, a session where a key is needed, a session or key of
 * another site or account) and must answer the documented problem with the database unchanged;
 * lists and public reads must never show another site's rows, drafts or private lists. A route
 * added later is covered the day it lands; one whose body this file cannot make fails until
 * `bodies()` says what to send.
 */

/** Path parameters that name a resource of the site (or of the account, for API keys). */
const RESOURCE_PARAMS = new Set([
  'id',
  'itemId',
  'revisionId',
  'templateId',
  'deliveryId',
  'variantId',
  'subId',
  'page_id',
  'product_id',
  'product_category_id',
]);

/** An id no row has: a foreign id must answer exactly like it (nothing to enumerate). */
const ABSENT_ID = '9007199254740991';

/**
 * Bodies that pass validation where the document's examples alone do not (keyed by label), so a
 * request is refused for the id it names and not for its body. Ids in them are site A's.
 */
function bodies(f: ResourceFixtures): Record<string, Record<string, unknown>> {
  const v2 = '/api/v2/sites/{siteName}';
  return {
    'POST /v1/{site_name}/pages': { title: 'Isolation', content: '<p>x</p>', page_type: 'post' },
    'PUT /v1/{site_name}/products/{product_id}/variant': { variant: { option1: 'Size', option1_value: 'L' } },
    [`PATCH ${v2}/orders/{id}/fulfillment`]: { status: 'canceled' },
    [`POST ${v2}/email/send`]: { to: [{ email: 'isolation@example.com' }], subject: 'Isolation', text: 'x' },
    [`POST ${v2}/newsletter/subscriptions/{id}/list-membership`]: { remove: [f.ids.newsletterList] },
    [`POST ${v2}/newsletter/subscriptions/{id}/status`]: { status: 'unsubscribed', reason: 'Asked' },
    [`POST ${v2}/newsletter/subscriptions/bulk`]: { action: 'unsubscribe', ids: [f.ids.subscription] },
    [`POST ${v2}/newsletter/subscriptions/sync`]: { listId: f.ids.newsletterList, emails: ['isolation@example.com'] },
    [`POST ${v2}/newsletter/series`]: {
      name: 'Isolation',
      listIds: [f.ids.newsletterList],
      steps: [{ delaySeconds: 0, subject: 'Isolation', html: '<p>x</p>' }],
    },
    [`POST ${v2}/users/me/subscriptions/{id}/change-plan`]: { productId: f.ids.product },
    [`POST ${v2}/users/{id}/subscriptions/{subId}/change-plan`]: { productId: f.ids.product },
  };
}

/** Body fields that name a resource of the site (or account), and the fixture each takes. */
const BODY_REFERENCES: Record<string, string> = {
  contentId: 'content',
  attachmentIds: 'media',
  attachment_ids: 'media',
  categoryIds: 'category',
  tagIds: 'tag',
  categoryId: 'productCategory',
  product_category_id: 'productCategory',
  templateId: 'template',
  productId: 'product',
  variantId: 'variant',
  listId: 'newsletterList',
  listIds: 'newsletterList',
  add: 'newsletterList',
  remove: 'newsletterList',
  ids: 'subscription',
  siteIds: 'site',
};

/** Which fixture a list's rows are, by the list's last fixed path segment. */
function listKind(op: Operation): string | null {
  const segments = op.path.split('/').filter((s) => s && !s.startsWith('{'));
  const last = segments[segments.length - 1];
  const kinds: Record<string, string> = {
    sites: 'site',
    'api-keys': 'key',
    'sender-domains': 'senderDomain',
    content: 'content',
    pages: 'content',
    collections: 'collection',
    items: 'content',
    tags: 'tag',
    media: 'media',
    revisions: 'revision',
    templates: 'template',
    messages: 'message',
    webhooks: 'webhook',
    deliveries: 'delivery',
    products: 'product',
    users: 'user',
    contacts: 'contact',
    orders: 'order',
    lists: 'newsletterList',
    series: 'newsletterSeries',
    campaigns: 'campaign',
    // new:module: list kinds above (a module's path segment and its fixture in resource-fixtures.ts)
  };
  if (last === 'categories') return op.path.includes('/media/') ? 'category' : 'productCategory';
  if (last === 'subscriptions') return op.path.includes('/users/') ? 'userSubscription' : 'subscription';
  return kinds[last] ?? null;
}

/** Reads that are not a site's data, or that only a signed token reaches. */
const NOT_DATA = [/^\/health/, /\{token\}/];

type Caller = { key: string } | { session: string } | Record<string, never>;

interface Case {
  label: string;
  method: Operation['method'];
  url: string;
  as: Caller;
  body?: Record<string, unknown>;
  expect: [status: number, code: string];
  /** The same request for an id that never existed: both problems must read alike. */
  absentUrl?: string;
}

describe('tenant isolation over every operation of the OpenAPI document', () => {
  const media = tempMediaDir('isolation');
  let t: TestApp;
  let doc: OpenApiDocument;
  let operations: Operation[];
  /** Account X: sites A and C. Account Y: site B. */
  let a: Tenant;
  let b: Tenant;
  let c: Tenant;
  let fa: ResourceFixtures;
  let fb: ResourceFixtures;
  let fc: ResourceFixtures;
  /** A key of account X restricted to site A. */
  let restrictedKey: string;
  /** Rows only a key of the site may see. */
  let drafts: { content: number; product: number; privateList: number };
  let published: { content: number };
  const counts: Record<string, number> = {};

  beforeAll(async () => {
    // No background work: the database moves only with the requests the cases make.
    // Sender domains are verified against a DNS of the test's own: no lookup leaves the machine.
    t = await startApp({
      env: { MEDIA_LOCAL_DIR: media.dir, JOBS_ENABLED: 'false' },
      extraModules: [fakeDns().module],
    });
    [a, b] = [await createTenant(t), await createTenant(t)];
    const siteC = await a.api
      .post('/api/v2/sites')
      .send({ name: uniqueName('iso-c') })
      .expect(201);
    c = { ...a, siteId: siteC.body.id as number, siteName: siteC.body.name as string };
    // Names of their own per site (A: "Fixture", C: "Fixture 5", B: "Fixture 7"), so a leak shows in any text.
    fa = await seedResources(t, a);
    fc = await seedResources(t, c, 5);
    fb = await seedResources(t, b, 7);
    const siteA = `/api/v2/sites/${a.siteName}`;
    const made = async (r: request.Test) => ((await r.expect(201)).body as { id: number }).id;
    for (const [tenant, suffix] of [
      [a, ''],
      [b, ' 7'],
      [c, ' 5'],
    ] as const) {
      const id = await made(
        tenant.api
          .post(`/api/v2/sites/${tenant.siteName}/content`)
          .send({ title: `Fixture${suffix} published`, status: 'published' }),
      );
      if (tenant === a) published = { content: id };
    }
    await a.api
      .post(`${siteA}/collections/${fa.ids.collection}/items`)
      .send({ contentId: published.content })
      .expect(201);
    drafts = {
      content: fa.ids.content,
      product: await made(
        a.api
          .post(`${siteA}/products`)
          .send({ name: 'Fixture draft', unitAmount: 100, currency: 'EUR', status: 'draft' }),
      ),
      privateList: await made(
        a.api.post(`${siteA}/newsletter/lists`).send({ name: 'Fixture private', visibility: 'private' }),
      ),
    };
    restrictedKey = (
      await a.api
        .post('/api/v2/api-keys')
        .send({ name: 'site A only', siteIds: [a.siteId] })
        .expect(201)
    ).body.key as string;
    ({ doc, operations } = await loadOperations(t.server));
  });

  afterAll(async () => {
    // The count the issue asks for; printed so a run shows what it covered.
    console.log(
      `tenant isolation: ${Object.entries(counts)
        .map(([rule, n]) => `${rule}: ${n}`)
        .join(', ')}`,
    );
    await t.close();
    media.remove();
  });

  // --- the vocabulary ---------------------------------------------------------------------

  const namesSite = (op: Operation) => op.pathParams.some((p) => ['siteName', 'site_name', 'project_id'].includes(p));
  const isV1 = (op: Operation) => op.path.startsWith('/v1');
  const takesSession = (op: Operation) => op.sessionOnly || op.security.includes('session');
  /** Key-only: neither public nor open to a site user's session. */
  const operatorOnly = (op: Operation) => !op.isPublic && !takesSession(op);
  const isData = (op: Operation) => !NOT_DATA.some((re) => re.test(op.path));
  /** The caller an operation of site A is meant for. */
  const ownCaller = (op: Operation): Caller => (op.sessionOnly ? { session: fa.sessionToken } : { key: a.key });

  /** The operation's URL with its required query parameters: each case is judged on its path alone. */
  const urlOf = (f: ResourceFixtures, op: Operation, raw: Record<string, string> = {}) =>
    operationUrl(f, op, raw) + requiredQuery(op);

  function bodyFor(op: Operation): Record<string, unknown> | undefined {
    if (op.body !== 'json') return undefined;
    const known = bodies(fa)[op.label];
    if (known) return known;
    return op.bodyRequired ? exampleBody(op.schema ?? {}) : undefined;
  }

  function send(c: Pick<Case, 'method' | 'url' | 'as' | 'body'>): Promise<request.Response> {
    let r = request(t.server)[c.method](c.url);
    if ('key' in c.as) r = r.set('x-api-key', c.as.key);
    if ('session' in c.as) r = r.set('authorization', `Bearer ${c.as.session}`);
    return c.body === undefined ? r : r.send(c.body);
  }

  /** An answer with its request id left out and any id its messages name written `{id}`. */
  const comparable = (res: request.Response) => ({
    status: res.status,
    body: JSON.parse(JSON.stringify({ ...res.body, requestId: undefined }).replace(/\b([A-Za-z]+) \d+\b/g, '$1 {id}')),
  });

  const sameProblem = (res: request.Response) => ({
    status: res.status,
    code: res.body?.code,
    title: res.body?.title,
    detail: res.body?.detail,
  });

  /** Sends the cases a few at a time and lists every one that did not answer as expected. */
  async function run(rule: string, cases: Case[]): Promise<void> {
    expect(cases.length).toBeGreaterThan(0);
    counts[rule] = (counts[rule] ?? 0) + cases.length;
    const failures: string[] = [];
    for (let i = 0; i < cases.length; i += 4) {
      await Promise.all(
        cases.slice(i, i + 4).map(async (c) => {
          const res = await send(c);
          try {
            expectProblem(res, ...c.expect);
            if (c.absentUrl) expect(sameProblem(res)).toEqual(sameProblem(await send({ ...c, url: c.absentUrl })));
          } catch (err) {
            failures.push(
              `${c.label} -> ${res.status} ${JSON.stringify(res.body).slice(0, 300)}\n${String((err as Error).message).slice(0, 400)}`,
            );
          }
        }),
      );
    }
    expect(failures).toEqual([]);
  }

  /** Runs the rule and checks that nothing changed: every table, the outbox included. */
  async function unchanged(work: () => Promise<void>): Promise<void> {
    const before = await snapshotDatabase(t.db);
    await work();
    expect(await snapshotDatabase(t.db)).toEqual(before);
  }

  /** The fixtures of `ids` under the site (and caller) of `site`: another site's ids on A's path. */
  const mixed = (site: ResourceFixtures, ids: ResourceFixtures): ResourceFixtures => ({ ...site, ids: ids.ids });

  it('reads the document and has a fixture for every path parameter', () => {
    expect(operations.length).toBeGreaterThanOrEqual(150);
    expect(pathParamsWithoutFixture(fa, operations)).toEqual([]);
  });

  // --- the rules --------------------------------------------------------------------------

  it("1. another site's id on A's path, with A's own credential: 404, like an id that never existed", () =>
    unchanged(() => {
      const cases: Case[] = [];
      for (const op of operations.filter((o) => o.pathParams.some((p) => RESOURCE_PARAMS.has(p)))) {
        // C shares A's account: only site-scoped resources are foreign to A there.
        const others = namesSite(op) ? [fb, fc] : [fb];
        // A route open to keys and sessions alike (orders) is tried with both.
        const callers =
          takesSession(op) && !op.sessionOnly ? [ownCaller(op), { session: fa.sessionToken }] : [ownCaller(op)];
        for (const other of others)
          for (const as of callers)
            for (const name of op.pathParams.filter((p) => RESOURCE_PARAMS.has(p))) {
              const foreign = paramValue(mixed(fa, other), op, name);
              cases.push({
                label: `${op.label} ${name} of ${other === fb ? 'B' : 'C'}${'session' in as ? ' (session)' : ''}`,
                method: op.method,
                url: urlOf(fa, op, { [name]: foreign }),
                absentUrl: urlOf(fa, op, { [name]: ABSENT_ID }),
                as,
                body: bodyFor(op),
                expect: [404, 'not_found'],
              });
            }
      }
      return run('1 foreign ids', cases);
    }));

  it("1. another site's id inside a body: answered like an id that never existed, and nothing written", () =>
    unchanged(async () => {
      const cases: Array<{
        label: string;
        op: Operation;
        name: string;
        body: (id: number) => Record<string, unknown>;
      }> = [];
      for (const op of operations.filter((o) => o.body === 'json' && !o.isPublic))
        for (const [name, property] of Object.entries(op.schema?.properties ?? {})) {
          const schema = resolve(doc, property);
          const numeric = (s?: { type?: string }) => s?.type === 'integer' || s?.type === 'number';
          if (!BODY_REFERENCES[name] || !(numeric(schema) || (schema.type === 'array' && numeric(schema.items))))
            continue;
          const base = { ...(bodyFor(op) ?? {}) };
          // A mail names a template or a subject with its text, never both (email/send's one-of).
          if (name === 'templateId') for (const field of ['subject', 'html', 'text']) delete base[field];
          cases.push({
            label: `${op.label} ${name}`,
            op,
            name,
            body: (id) => ({ ...base, [name]: schema.type === 'array' ? [id] : id }),
          });
        }
      // References inside nested objects: an order's lines.
      const orders = operations.find((o) => o.label === 'POST /api/v2/sites/{siteName}/orders');
      if (orders)
        cases.push({
          label: `${orders.label} lines[].productId`,
          op: orders,
          name: 'lines',
          body: (id) => ({ lines: [{ productId: id, quantity: 1 }], customer: { email: 'isolation@example.com' } }),
        });
      expect(cases.length).toBeGreaterThanOrEqual(20);
      const failures: string[] = [];
      for (const c of cases) {
        const kind = BODY_REFERENCES[c.name] ?? 'product';
        for (const other of namesSite(c.op) ? [fb, fc] : [fb]) {
          const as = ownCaller(c.op);
          const url = urlOf(fa, c.op);
          const res = await send({ method: c.op.method, url, as, body: c.body(idsOf(other)[kind]) });
          const absent = await send({ method: c.op.method, url, as, body: c.body(Number(ABSENT_ID)) });
          counts['1 foreign ids'] = (counts['1 foreign ids'] ?? 0) + 1;
          try {
            // The same answer as for an id that never existed; messages may name the id itself.
            expect(comparable(res)).toEqual(comparable(absent));
            if (res.status >= 400) {
              expectProblem(res, res.status, String(res.body.code));
              // Refused for that field alone, not for something else the body lacks.
              const paths = ((res.body.errors ?? []) as Array<{ path: string }>).map((e) => e.path.split('.')[0]);
              expect(paths.filter((p) => p !== c.name)).toEqual([]);
            }
          } catch (err) {
            failures.push(
              `${c.label} of ${other === fb ? 'B' : 'C'} -> ${res.status} ${JSON.stringify(res.body).slice(0, 300)} / absent: ${absent.status} ${JSON.stringify(absent.body).slice(0, 200)}\n${String((err as Error).message).slice(0, 300)}`,
            );
          }
        }
      }
      expect(failures).toEqual([]);
    }));

  it('2. every operation that is not public, without a credential: 401', () =>
    unchanged(() =>
      run(
        '2 no credential',
        operations
          .filter((op) => !op.isPublic)
          .map((op) => ({
            label: op.label,
            method: op.method,
            url: urlOf(fa, op),
            as: {},
            body: bodyFor(op),
            expect: [401, isV1(op) ? 'missing_api_key' : 'missing_credential'],
          })),
      ),
    ));

  it("3. a site user's session on an operator route: 403 (v1: 401, it needs x-api-key); a key on a user's own route: 403", () =>
    unchanged(() =>
      run('3 wrong kind of credential', [
        ...operations.filter(operatorOnly).flatMap((op) =>
          // On site B too: the session is refused for what it is, before any site is looked at.
          [fa, fb].map((f): Case => ({
            label: `${op.label} on ${f === fa ? 'A' : 'B'}`,
            method: op.method,
            url: urlOf(f, op),
            as: { session: fa.sessionToken },
            body: bodyFor(op),
            expect: isV1(op) ? [401, 'missing_api_key'] : [403, 'session_not_allowed'],
          })),
        ),
        ...operations
          .filter((op) => op.sessionOnly)
          .map((op): Case => ({
            label: `${op.label} with a key`,
            method: op.method,
            url: urlOf(fa, op),
            as: { key: a.key },
            body: bodyFor(op),
            expect: [403, 'session_required'],
          })),
      ]),
    ));

  it("4. a session of site A (or C, A's own account) on another site's session routes: 401", () =>
    unchanged(async () => {
      // Both sessions work on their own site: the 401s below are for the site, not the token.
      for (const f of [fa, fc])
        expect(
          (
            await send({
              method: 'get',
              url: `/api/v2/sites/${f.tenant.siteName}/users/me`,
              as: { session: f.sessionToken },
            })
          ).status,
        ).toBe(200);
      return run(
        '4 foreign session',
        operations.filter(takesSession).flatMap((op) =>
          [
            [fb, fa],
            [fa, fc],
          ].map(([site, session]): Case => ({
            label: `${op.label} on ${site === fb ? 'B' : 'A'} with the session of ${session === fa ? 'A' : 'C'}`,
            method: op.method,
            url: urlOf(site, op),
            as: { session: session.sessionToken },
            body: bodyFor(op),
            expect: [401, 'invalid_session'],
          })),
        ),
      );
    }));

  it('5. a key restricted to site A on site C of the same account: 404, as if C did not exist', () =>
    unchanged(() =>
      run(
        '5 restricted key',
        operations
          .filter((op) => namesSite(op) && !op.isPublic && !op.sessionOnly)
          .map((op) => ({
            label: op.label,
            method: op.method,
            url: urlOf(fc, op),
            as: { key: restrictedKey },
            body: bodyFor(op),
            expect: [404, 'site_not_found'],
          })),
      ),
    ));

  it("6. a key of account X on account Y's site: 404, with Y's own ids; a v1 project of Y under X's id too", () =>
    unchanged(() => {
      const keyed = operations.filter((op) => namesSite(op) && !op.isPublic && !op.sessionOnly);
      return run('6 other account', [
        ...keyed.map((op): Case => ({
          label: op.label,
          method: op.method,
          url: urlOf(fb, op),
          as: { key: a.key },
          body: bodyFor(op),
          expect: [404, 'site_not_found'],
        })),
        // A project is (organization, project): Y's project under X's organization is no project of X's.
        ...keyed
          .filter((op) => op.pathParams.includes('organization_id'))
          .map((op): Case => ({
            label: `${op.label} organization X, project B`,
            method: op.method,
            url: urlOf(fb, op, { organization_id: String(a.accountId) }),
            as: { key: a.key },
            body: bodyFor(op),
            expect: [404, 'site_not_found'],
          })),
      ]);
    }));

  // --- what reads show --------------------------------------------------------------------

  /** Text that only B's or C's rows hold (their names, addresses, site names and webhook URLs). */
  const foreignText = (siteScoped: boolean) =>
    new RegExp(
      [
        'Fixture 7',
        '7@example\\.com',
        'hooks7',
        'spare 7',
        b.siteName,
        ...(siteScoped ? ['Fixture 5', '5@example\\.com', 'hooks5', c.siteName] : []),
      ].join('|'),
    );

  /** A body as anyone would read it again: a problem's request id is the request's own. */
  const withoutRequestId = (body: Record<string, unknown>) => ({ ...body, requestId: undefined });

  /** The ids of a page's rows (v1 names them after the resource). */
  const rowIds = (body: { data: Array<Record<string, unknown>> }) =>
    body.data.map((row) => row.id ?? row.page_id ?? row.media_id ?? row.contentId);

  /** A site's fixture ids, with the site itself. */
  const idsOf = (f: ResourceFixtures): Record<string, number> => ({ ...f.ids, site: f.tenant.siteId });

  /** Every read of site A that answers a page of rows. */
  async function lists(as: (op: Operation) => Caller, ops: Operation[]) {
    const found: Array<{ op: Operation; body: { data: Array<Record<string, unknown>> } }> = [];
    for (const op of ops) {
      const res = await send({ method: 'get', url: urlOf(fa, op), as: as(op) });
      if (res.status === 200 && Array.isArray(res.body?.data)) found.push({ op, body: res.body });
    }
    return found;
  }

  /** A GET whose documented answer is a page of rows (`data`: an array). */
  function isList(op: Operation): boolean {
    if (op.method !== 'get' || !isData(op) || op.queryParams.some((q) => q.required)) return false;
    const content = (
      doc.paths[op.path][op.method] as { responses?: Record<string, { content?: Record<string, { schema: object }> }> }
    ).responses?.['200']?.content?.['application/json'];
    return content ? resolve(doc, content.schema).properties?.data?.type === 'array' : false;
  }

  it("7. every list A reads holds A's own rows and never one of B's or C's", async () => {
    const documented = operations.filter(isList);
    expect(documented.length).toBeGreaterThanOrEqual(25);
    const found = await lists((op) => ownCaller(op), documented);
    // Every documented list answered a page: none is skipped by an error.
    expectOrFix(
      "A list missing on the left did not answer A's own caller 200 with a page: call it as the test does " +
        "(GET with site A's fixtures from test/support/resource-fixtures.ts and A's key or session) and fix " +
        'what it answers, or a fixture its path needs',
      () => expect(found.map(({ op }) => op.label)).toEqual(documented.map((op) => op.label)),
    );
    counts['7 lists'] = found.length;
    const failures: string[] = [];
    for (const { op, body } of found) {
      const kind = listKind(op);
      const text = JSON.stringify(body);
      const leaked = foreignText(namesSite(op)).exec(text);
      const foreignIds = kind ? [fb, ...(namesSite(op) ? [fc] : [])].map((f) => idsOf(f)[kind]) : [];
      const ids = rowIds(body);
      if (leaked) failures.push(`${op.label} shows ${leaked[0]}`);
      if (kind && !ids.includes(idsOf(fa)[kind]))
        failures.push(
          `${op.label} misses A's ${kind} ${idsOf(fa)[kind]}: the list must show the fixture seedResources made ` +
            '(test/support/resource-fixtures.ts) to its own site; if the list holds another kind of row, map its ' +
            "last path segment to that fixture's name in listKind above",
        );
      for (const id of foreignIds) if (ids.includes(id)) failures.push(`${op.label} lists a foreign ${kind} ${id}`);
    }
    expect(failures).toEqual([]);
    // The id check ran on most lists (the rest have rows of no fixture: credits, template types).
    expect(found.filter(({ op }) => listKind(op)).length).toBeGreaterThanOrEqual(25);
  });

  it('7. public reads, anonymous or with a credential that cannot reach the site, never show drafts, private lists or other sites', async () => {
    const publicReads = operations.filter((op) => op.method === 'get' && op.isPublic && isData(op));
    expect(publicReads.length).toBeGreaterThanOrEqual(8);
    const failures: string[] = [];
    for (const op of publicReads) {
      const anonymous = await send({ method: 'get', url: urlOf(fa, op), as: {} });
      const text = JSON.stringify(withoutRequestId(anonymous.body));
      const leaked = foreignText(true).exec(text) ?? /"status":"draft"|"visibility":"private"/.exec(text);
      if (leaked) failures.push(`${op.label} anonymous shows ${leaked[0]}`);
      // A key of another account, or a session of another site, reads exactly as anonymous.
      for (const [who, as] of [
        ['a key of account Y', { key: b.key }],
        ['a session of site C', { session: fc.sessionToken }],
      ] as const) {
        const res = await send({ method: 'get', url: urlOf(fa, op), as });
        if (res.status !== anonymous.status || JSON.stringify(withoutRequestId(res.body)) !== text)
          failures.push(`${op.label} with ${who}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
      counts['7 public reads'] = (counts['7 public reads'] ?? 0) + 3;
    }
    expect(failures).toEqual([]);
  });

  it('7. anonymous lists show published rows only; a draft by id is a 404', async () => {
    const site = `/api/v2/sites/${a.siteName}`;
    const anonymous = agent(t);
    const content = await anonymous.get(`${site}/content`).expect(200);
    expect(rowIds(content.body)).toEqual([published.content]);
    const items = await anonymous.get(`${site}/collections/${fa.ids.collection}/items`).expect(200);
    expect(JSON.stringify(items.body)).toContain('Fixture published');
    expect(JSON.stringify(items.body)).not.toMatch(/"title":"Fixture"/);
    const products = await anonymous.get(`${site}/products`).expect(200);
    expect(rowIds(products.body)).toEqual([fa.ids.product]);
    const drafted = [
      await anonymous.get(`${site}/content/${drafts.content}`),
      await anonymous.get(`${site}/products/${drafts.product}`),
    ];
    for (const res of drafted) expectProblem(res, 404, 'not_found');
    // The key of the site sees the drafts.
    expect(rowIds((await a.api.get(`${site}/content`).expect(200)).body)).toEqual(
      expect.arrayContaining([published.content, drafts.content]),
    );
    counts['7 public reads'] = (counts['7 public reads'] ?? 0) + 6;
  });

  it("7. the anonymous subscribe takes A's public lists only: a private list, B's and C's are one same 400", () =>
    unchanged(async () => {
      const url = `/api/v2/sites/${a.siteName}/newsletter/subscribe`;
      const answers = [];
      for (const list of [drafts.privateList, fb.ids.newsletterList, fc.ids.newsletterList, Number(ABSENT_ID)]) {
        const res = await request(t.server)
          .post(url)
          .send({ email: 'stranger@example.com', lists: [list] });
        expectProblem(res, 400, 'validation_failed');
        answers.push({ ...sameProblem(res), errors: res.body.errors as unknown });
      }
      expect(answers[0].errors).toEqual([expect.objectContaining({ path: 'lists' })]);
      expect(answers.slice(1)).toEqual([answers[0], answers[0], answers[0]]);
      counts['7 public reads'] = (counts['7 public reads'] ?? 0) + answers.length;
    }));

  it("8. v1: the project media delete with B's storage key deletes nothing of B's", () =>
    unchanged(async () => {
      const { key } = (await b.api.get(`/api/v2/sites/${b.siteName}/media/${fb.ids.media}`).expect(200)).body as {
        key: string;
      };
      expect(key).toEqual(expect.any(String));
      await request(t.server)
        .delete(`/v1/project/${a.accountId}/${a.siteId}/media`)
        .set('x-api-key', a.key)
        .send({ keys: [key] })
        .expect(204);
      counts['8 v1'] = (counts['8 v1'] ?? 0) + 1;
    }));

  it('8. the /v1 routes are in every rule above', () => {
    const v1 = operations.filter(isV1);
    expect(v1.length).toBeGreaterThanOrEqual(10);
    expect(v1.filter((op) => op.pathParams.some((p) => RESOURCE_PARAMS.has(p))).length).toBeGreaterThanOrEqual(5);
    expect(v1.every((op) => !op.isPublic && namesSite(op))).toBe(true);
    counts['8 v1'] = (counts['8 v1'] ?? 0) + v1.length;
  });
});
