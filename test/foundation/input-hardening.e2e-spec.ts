import fc from 'fast-check';
import request from 'supertest';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { UserSubscriptionEntity } from '../../src/users/entities/user-subscription.entity';
import { SessionsService } from '../../src/users/sessions.service';
import { FORBIDDEN_KEYS } from '../../src/common/input/json-body';
import { startApp, TestApp } from '../support/app';
import { snapshotDatabase } from '../support/db-snapshot';
import {
  exampleBody,
  jsonWith,
  loadOperations,
  Operation,
  resolve,
  OpenApiDocument,
  Schema,
} from '../support/openapi-operations';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';
import { filesUnder, makePdf, tempMediaDir } from '../support/files';

/**
 * docs/foundation.md, "Input rules", over every operation of the app's own OpenAPI document: a
 * route added later is covered the day it lands (and an unknown path parameter fails here until
 * the table says what to put in it). Each row of the hardening table is sent wherever it
 * applies and must answer its 4xx problem, with the database, the outbox and the stored files
 * unchanged. fast-check (fixed seed) generates variants of rows 2-8.
 */

const SEED = 20261121;
const RUNS = 30;

type Expected = [status: number, code: string];

interface Case {
  label: string;
  method: Operation['method'];
  url: string;
  headers?: Record<string, string>;
  /** Raw body; a string without a content-type header goes out as bytes, with none. */
  body?: string;
  anonymous?: boolean;
  expect: Expected | Expected[];
  /** validation_failed must name each of these paths. */
  paths?: string[];
  /** Some error path is this one or below it. */
  under?: string;
  check?: (res: request.Response) => void;
}

const ID_PARAMS = new Set(['id', 'itemId', 'revisionId', 'page_id', 'organization_id', 'project_id', 'templateId']);
const INT_PARAMS = new Set(['limit', 'offset']);
/** An id segment documented as a string also takes a slug (content's GET, v1's page GET). */
const takesSlug = (op: Operation, name: string) => op.pathParamSchemas[name]?.type === 'string';
const FORBIDDEN = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty'];

/** Ways to write an id that are not its canonical digits; all used to resolve to it. */
const nonCanonical = (v: number): string[] => [
  `0x${v.toString(16)}`,
  `${v}e0`,
  `+${v}`,
  `${v}.0`,
  ` ${v}`,
  `${v}\t`,
  `0${v}`,
  `-${v}`,
  `${v} `,
  `${v * 10}e-1`,
];

const BAD_DATES = [
  '"+010000-01-01T00:00:00.000Z"',
  '"10000-01-01T00:00:00Z"',
  '"9999-12-31T23:59:59-01:00"',
  '"0000-01-01T00:00:00Z"',
  '"2024-02-30T00:00:00Z"',
  '"2024-01-01"',
  '"2024-01-01T00:00:00"',
  '"tomorrow"',
  'true',
  'false',
  '0',
  '1700000000000',
  '{}',
  '[]',
];

describe('input hardening over every operation of the OpenAPI document', () => {
  const media = tempMediaDir('hardening');
  let t: TestApp;
  let tenant: Tenant;
  let doc: OpenApiDocument;
  let operations: Operation[];
  let requests = 0;
  const ids: Record<string, number> = {};
  /** A site user's session, for the `/users/me/**` operations. */
  let sessionToken = '';

  beforeAll(async () => {
    t = await startApp({ env: { MEDIA_LOCAL_DIR: media.dir, RATE_LIMIT_PUBLIC_MAX: '1000000' } });
    tenant = await createTenant(t);
    ({ doc, operations } = await loadOperations(t.server));
    const site = `/api/v2/sites/${tenant.siteName}`;
    const made = async (res: request.Response) => {
      if (res.status !== 201) throw new Error(`fixture: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.id as number;
    };
    ids.key = await made(await tenant.api.post('/api/v2/api-keys').send({ name: 'spare' }));
    ids.content = await made(await tenant.api.post(`${site}/content`).send({ title: 'Fixture', tags: ['a'] }));
    ids.collection = await made(await tenant.api.post(`${site}/collections`).send({ name: 'Fixture' }));
    await tenant.api.post(`${site}/collections/${ids.collection}/items`).send({ contentId: ids.content }).expect(201);
    ids.category = await made(await tenant.api.post(`${site}/media/categories`).send({ name: 'Fixture' }));
    ids.tag = await made(await tenant.api.post(`${site}/media/tags`).send({ name: 'Fixture' }));
    ids.media = await made(await tenant.api.post(`${site}/media`).attach('file', makePdf(), 'fixture.pdf'));
    ids.revision = (await tenant.api.get(`${site}/content/${ids.content}/revisions`).expect(200)).body.data[0].id;
    ids.template = await made(
      await tenant.api
        .post(`${site}/email/templates`)
        .send({ type: 'custom', name: 'Fixture', subject: '{{ subject }}', html: '{{ body }}' }),
    );
    const sent = await tenant.api
      .post(`${site}/email/send`)
      .send({ to: [{ email: 'f@example.com' }], subject: 'F', text: 'F' });
    if (sent.status !== 202) throw new Error(`fixture: ${sent.status} ${JSON.stringify(sent.body)}`);
    ids.message = sent.body.messages[0].id;
    // Disabled, so the events of the fixtures above are not fanned out to it mid-snapshot; a
    // public IP literal, so no DNS is needed to create it.
    ids.webhook = await made(
      await tenant.api
        .post(`${site}/webhooks`)
        .send({ url: 'https://93.184.215.14/hooks', status: 'disabled', eventTypes: ['content.*'] }),
    );
    ids.productCategory = await made(await tenant.api.post(`${site}/categories`).send({ name: 'Fixture' }));
    const product = await tenant.api
      .post(`${site}/products`)
      .send({ name: 'Fixture', unitAmount: 100, currency: 'EUR', option1: 'Size', categoryId: ids.productCategory });
    ids.product = await made(product);
    const withVariant = await tenant.api.post(`${site}/products/${ids.product}/variants`).send({ option1Value: 'M' });
    if (withVariant.status !== 201)
      throw new Error(`fixture: ${withVariant.status} ${JSON.stringify(withVariant.body)}`);
    ids.variant = withVariant.body.variants[0].id as number;
    const user = await t.db
      .getRepository(SiteUserEntity)
      .save({ siteId: tenant.siteId, email: 'fixture@example.com', name: 'Fixture', status: 'active', metadata: {} });
    ids.user = user.id;
    sessionToken = (await t.db.transaction((em) => t.app.get(SessionsService).create(em, user, {}))).token;
    // The user's subscription, as a paid order's recurring line would start it.
    const now = new Date();
    ids.subscription = (
      await t.db.getRepository(UserSubscriptionEntity).save({
        siteId: tenant.siteId,
        userId: user.id,
        productId: ids.product,
        status: 'active',
        unitAmount: 100,
        currency: 'EUR',
        interval: 'month',
        intervalCount: 1,
        currentPeriodStart: now,
        currentPeriodEnd: new Date(now.getTime() + 30 * 86_400_000),
      })
    ).id;
    ids.order = await made(
      await tenant.api
        .post(`${site}/orders`)
        .send({ lines: [{ productId: ids.product, quantity: 1 }], customer: { email: 'f@example.com' } }),
    );
    const [delivery] = await t.db.query<Array<{ id: string }>>(
      `INSERT INTO webhook_deliveries (site_id, endpoint_id, event_type, payload, status)
       VALUES ($1, $2, 'webhook.test', '{}', 'failed') RETURNING id`,
      [tenant.siteId, ids.webhook],
    );
    ids.delivery = Number(delivery.id);
    // Sent with the key (the receipt names no id), then found in the inbox.
    await tenant.api
      .post(`${site}/contacts`)
      .send({ name: 'Fixture', email: 'fixture@example.com', message: 'Fixture' })
      .expect(201);
    ids.contact = (await tenant.api.get(`${site}/contacts?limit=1`).expect(200)).body.data[0].id as number;
    ids.newsletterList = await made(await tenant.api.post(`${site}/newsletter/lists`).send({ name: 'Fixture' }));
    await tenant.api
      .post(`${site}/newsletter/subscriptions/sync`)
      .send({ listId: ids.newsletterList, emails: ['fixture@example.com'] })
      .expect(200);
    ids.subscription = (await tenant.api.get(`${site}/newsletter/subscriptions?limit=1`).expect(200)).body.data[0]
      .id as number;
    ids.newsletterImport = (
      await tenant.api
        .post(`${site}/newsletter/subscriptions/import`)
        .field('listIds', String(ids.newsletterList))
        .attach('file', Buffer.from('email\nimported@example.com\n'), 'fixture.csv')
        .expect(200)
    ).body.id as number;
    ids.campaign = await made(
      await tenant.api.post(`${site}/newsletter/campaigns`).send({ name: 'Fixture', listIds: [ids.newsletterList] }),
    );
  });

  afterAll(async () => {
    // The count the issue asks for; printed so a run shows what it covered.
    console.log(`input hardening: ${requests} requests over ${operations?.length ?? 0} operations`);
    await t.close();
    media.remove();
  });

  // --- the table's vocabulary -------------------------------------------------------------

  function idFor(path: string): number {
    if (path.includes('/api-keys/')) return ids.key;
    if (path.includes('/collections/')) return ids.collection;
    if (path.includes('/content/')) return ids.content;
    if (path.includes('/media/categories/')) return ids.category;
    if (path.includes('/media/tags/')) return ids.tag;
    if (path.includes('/media/')) return ids.media;
    if (path.includes('/email/messages/')) return ids.message;
    if (path.includes('/webhooks/')) return ids.webhook;
    if (path.includes('/categories/')) return ids.productCategory;
    if (path.includes('/products/')) return ids.product;
    if (path.includes('/users/me/subscriptions/')) return ids.subscription;
    if (path.includes('/users/')) return ids.user;
    if (path.includes('/contacts/')) return ids.contact;
    if (path.includes('/orders/')) return ids.order;
    if (path.includes('/newsletter/lists/')) return ids.newsletterList;
    if (path.includes('/newsletter/subscriptions/')) return ids.subscription;
    if (path.includes('/newsletter/imports/')) return ids.newsletterImport;
    if (path.includes('/newsletter/campaigns/')) return ids.campaign;
    throw new Error(`no fixture id for ${path}: add one to the table`);
  }

  function paramValue(op: Operation, name: string): string {
    switch (name) {
      case 'siteName':
      case 'site_name':
        return tenant.siteName;
      case 'id':
        return String(idFor(op.path));
      case 'itemId':
      case 'page_id':
        return String(ids.content);
      case 'revisionId':
        return String(ids.revision);
      case 'templateId':
        return String(ids.template);
      case 'templateType':
        return 'custom';
      case 'deliveryId':
        return String(ids.delivery);
      case 'key':
        return 'theme';
      case 'variantId':
        return String(ids.variant);
      case 'subId':
        return String(ids.subscription);
      case 'product_id':
        return String(ids.product);
      case 'product_category_id':
        return String(ids.productCategory);
      case 'organization_id':
        return String(tenant.accountId);
      case 'project_id':
        return String(tenant.siteId);
      case 'token':
        // Well-formed, signed by no one: refused before any row is read.
        if (op.path.includes('/track/open/')) return 'o.1.1.AAAAAAAAAAAAAAAAAAAAAA';
        if (op.path.includes('/track/click/')) return 'k.1.1.0.AAAAAAAAAAAAAAAAAAAAAA';
        return op.path.includes('/confirm/')
          ? 'c.1.AAAAAAAAAAAAAAAAAAAAAA.1.AAAAAAAAAAAAAAAAAAAAAA'
          : 'm.1.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA';
      case 'limit':
        return '20';
      case 'offset':
        return '0';
      default:
        throw new Error(`${op.label}: no value for path parameter ${name}: add it to the table`);
    }
  }

  /** The operation's URL; `raw` values are put in as they are (already encoded). */
  function url(op: Operation, raw: Record<string, string> = {}): string {
    return op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => raw[name] ?? encodeURIComponent(paramValue(op, name)));
  }

  const jsonOps = () => operations.filter((op) => op.body === 'json');
  const props = (op: Operation) =>
    Object.entries(op.schema?.properties ?? {}).map(([name, s]) => ({ name, schema: resolve(doc, s) }));
  const example = (op: Operation) => exampleBody(op.schema ?? {});
  const isNestedArray = (s: Schema) => s.type === 'array' && s.items?.$ref !== undefined;
  const isFreeObject = (s: Schema) => s.type === 'object' && s.properties === undefined;
  const anonymousCode = (op: Operation) => (op.path.startsWith('/v1') ? 'missing_api_key' : 'missing_credential');
  const jsonCase = (op: Operation, label: string, body: string, rest: Partial<Case>): Case => ({
    label: `${op.label} ${label}`,
    method: op.method,
    url: url(op),
    headers: { 'content-type': 'application/json' },
    body,
    expect: [400, 'validation_failed'],
    ...rest,
  });

  /** Whether a case's request goes to a session-only operation (it is sent with the fixture's session). */
  function sessionOnly(c: Case): boolean {
    const path = c.url.split('?')[0];
    return operations.some(
      (op) =>
        op.sessionOnly &&
        op.method === c.method &&
        new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path),
    );
  }

  async function send(c: Case): Promise<request.Response> {
    let r = request(t.server)[c.method](c.url);
    if (!c.anonymous)
      r = sessionOnly(c) ? r.set('authorization', `Bearer ${sessionToken}`) : r.set('x-api-key', tenant.key);
    for (const [name, value] of Object.entries(c.headers ?? {})) r = r.set(name, value);
    if (c.body !== undefined) r = r.send(c.headers?.['content-type'] ? c.body : Buffer.from(c.body));
    requests++;
    return r;
  }

  function verify(c: Case, res: request.Response): void {
    const expected = (Array.isArray(c.expect[0]) ? c.expect : [c.expect]) as Expected[];
    const match = expected.find(([status, code]) => res.status === status && res.body?.code === code) ?? expected[0];
    expectProblem(res, match[0], match[1]);
    const paths: string[] = (res.body.errors ?? []).map((e: { path: string }) => e.path);
    if (c.paths) expect(paths).toEqual(expect.arrayContaining(c.paths));
    if (c.under) expect(paths.filter((p) => p === c.under || p.startsWith(`${c.under}.`))).not.toEqual([]);
    c.check?.(res);
  }

  /** Sends the cases (a few at a time) and lists every one that did not answer as expected. */
  async function run(cases: Case[]): Promise<void> {
    expect(cases.length).toBeGreaterThan(0);
    const failures: string[] = [];
    for (let i = 0; i < cases.length; i += 4) {
      await Promise.all(
        cases.slice(i, i + 4).map(async (c) => {
          const res = await send(c);
          try {
            verify(c, res);
          } catch (err) {
            failures.push(
              `${c.label} -> ${res.status} ${JSON.stringify(res.body).slice(0, 300)}\n${String((err as Error).message).slice(0, 600)}`,
            );
          }
        }),
      );
    }
    expect(failures).toEqual([]);
  }

  async function snapshot() {
    return { db: await snapshotDatabase(t.db), files: filesUnder(media.dir) };
  }

  /** Runs a row and checks that nothing changed: every table (outbox included) and every stored file. */
  async function unchanged(row: () => Promise<void>): Promise<void> {
    const before = await snapshot();
    await row();
    expect(await snapshot()).toEqual(before);
  }

  /** One request of a generated case, checked like the table's. */
  async function sendAndVerify(c: Case): Promise<void> {
    verify(c, await send(c));
  }

  it('reads the document and has a fixture for every path parameter', () => {
    expect(operations.length).toBeGreaterThanOrEqual(50);
    for (const op of operations) for (const name of op.pathParams) expect(typeof paramValue(op, name)).toBe('string');
    expect(jsonOps().length).toBeGreaterThanOrEqual(15);
  });

  // --- the rows ---------------------------------------------------------------------------

  it('1. a Content-Encoding the server does not inflate: 415 on every operation, with or without a key', () =>
    unchanged(() =>
      run(
        operations.flatMap((op) =>
          ['gzip', 'deflate', 'br'].flatMap((encoding) =>
            [false, true].map((anonymous): Case => ({
              label: `${op.label} ${encoding}${anonymous ? ' anonymous' : ''}`,
              method: op.method,
              url: url(op),
              anonymous,
              headers: { 'content-type': 'application/json', 'content-encoding': encoding },
              body: '{"a":1}',
              expect: [415, 'unsupported_content_encoding'],
            })),
          ),
        ),
      ),
    ));

  it('2. JSON nested deeper than 32 levels: 400 json_too_deep before validation', () =>
    unchanged(() =>
      run(
        jsonOps().flatMap((op) =>
          [33, 1500, 5000].map((depth) => {
            const inner = depth - 1;
            return jsonCase(
              op,
              `depth ${depth}`,
              jsonWith(example(op), [[props(op)[0].name, '['.repeat(inner) + ']'.repeat(inner)]]),
              { expect: [400, 'json_too_deep'] },
            );
          }),
        ),
      ),
    ));

  it('2. generated: any mix of objects and arrays past 32 levels', () =>
    unchanged(() =>
      fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...jsonOps()),
          fc.array(fc.boolean(), { minLength: 32, maxLength: 3000 }),
          async (op, levels) => {
            const open = levels.map((array) => (array ? '[' : '{"k":')).join('');
            const close = levels
              .map((array) => (array ? ']' : '}'))
              .reverse()
              .join('');
            await sendAndVerify(
              jsonCase(op, 'generated depth', jsonWith(example(op), [[props(op)[0].name, `${open}1${close}`]]), {
                expect: [400, 'json_too_deep'],
              }),
            );
          },
        ),
        { seed: SEED, numRuns: RUNS },
      ),
    ));

  const nonNullable = (op: Operation) =>
    props(op)
      // Null is allowed by the schema itself, or by one of its `oneOf`/`anyOf` branches (v1 `recurring`, a profile value).
      .filter(
        (p) => !p.schema.nullable && ![...(p.schema.oneOf ?? []), ...(p.schema.anyOf ?? [])].some((b) => b.nullable),
      )
      .map((p) => p.name);

  it('3. null where a field has no null: 400 naming it, on create and update alike', () =>
    unchanged(() =>
      run(
        jsonOps().flatMap((op) =>
          nonNullable(op).map((name) =>
            jsonCase(op, `${name}: null`, JSON.stringify({ ...example(op), [name]: null }), { paths: [name] }),
          ),
        ),
      ),
    ));

  it('3. generated: any set of such fields set to null', () =>
    unchanged(() =>
      fc.assert(
        fc.asyncProperty(
          fc
            .constantFrom(...jsonOps().filter((op) => nonNullable(op).length > 0))
            .chain((op) => fc.tuple(fc.constant(op), fc.subarray(nonNullable(op), { minLength: 1 }))),
          async ([op, names]) => {
            const body = { ...example(op), ...Object.fromEntries(names.map((n) => [n, null])) };
            await sendAndVerify(jsonCase(op, `${names.join(',')}: null`, JSON.stringify(body), { paths: names }));
          },
        ),
        { seed: SEED, numRuns: RUNS },
      ),
    ));

  /** Every date-time field: body properties and query parameters. */
  interface DateTarget {
    op: Operation;
    name: string;
    in: 'body' | 'query';
  }
  const dateTargets = (): DateTarget[] =>
    operations.flatMap((op) => [
      ...props(op)
        .filter((p) => p.schema.format === 'date-time')
        .map((p) => ({ op, name: p.name, in: 'body' as const })),
      ...op.queryParams
        .filter((p) => p.schema.format === 'date-time')
        .map((p) => ({ op, name: p.name, in: 'query' as const })),
    ]);
  const dateCase = (d: DateTarget, json: string): Case =>
    d.in === 'body'
      ? jsonCase(d.op, `${d.name}: ${json}`, jsonWith(example(d.op), [[d.name, json]]), { paths: [d.name] })
      : {
          label: `${d.op.label} ?${d.name}=${json}`,
          method: d.op.method,
          url: `${url(d.op)}?${d.name}=${encodeURIComponent(typeof JSON.parse(json) === 'string' ? JSON.parse(json) : json)}`,
          expect: [400, 'validation_failed'],
          paths: [d.name],
        };

  it('4 and 8. dates: RFC 3339 strings in years 0001-9999 only, never booleans or numbers', () =>
    unchanged(() => {
      expect(dateTargets().length).toBeGreaterThanOrEqual(8);
      return run(dateTargets().flatMap((d) => BAD_DATES.map((json) => dateCase(d, json))));
    }));

  it('4 and 8. generated: far years, offsets past the range, date-only, booleans, numbers, text', () =>
    unchanged(() =>
      fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...dateTargets()),
          fc
            .oneof(
              fc
                .integer({ min: 10_000, max: 275_759 })
                .map((y) => `+${String(y).padStart(6, '0')}-01-01T00:00:00.000Z`),
              fc.integer({ min: 10_000, max: 99_999 }).map((y) => `${y}-06-01T12:00:00Z`),
              fc.integer({ min: 1, max: 23 }).map((h) => `9999-12-31T23:59:59-${String(h).padStart(2, '0')}:00`),
              fc
                .date({
                  min: new Date('0001-01-01T00:00:00Z'),
                  max: new Date('9999-12-31T00:00:00Z'),
                  noInvalidDate: true,
                })
                .map((d) => d.toISOString().slice(0, 10)),
              fc
                .date({
                  min: new Date('0001-01-01T00:00:00Z'),
                  max: new Date('9999-12-31T00:00:00Z'),
                  noInvalidDate: true,
                })
                .map((d) => d.toISOString().slice(0, 19)),
              fc.string({ maxLength: 24 }).filter((s) => !/^\d{4}-/.test(s)),
            )
            .map((s) => JSON.stringify(s)),
          fc
            .oneof(fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }))
            .map((v) => JSON.stringify(v)),
          fc.boolean(),
          async (target, text, scalar, useText) => {
            await sendAndVerify(dateCase(target, useText ? text : scalar));
          },
        ),
        { seed: SEED, numRuns: RUNS * 2 },
      ),
    ));

  /** Every id-like parameter: path ids and integers, ids-or-slugs, and numeric query parameters. */
  interface IdTarget {
    op: Operation;
    name: string;
    in: 'path' | 'query';
    value: number;
    slug: boolean;
  }
  const idTargets = (): IdTarget[] =>
    operations.flatMap((op) => [
      ...op.pathParams
        .filter((n) => ID_PARAMS.has(n) || INT_PARAMS.has(n))
        .map((name) => ({
          op,
          name,
          in: 'path' as const,
          value: Number(paramValue(op, name)) || 20,
          slug: takesSlug(op, name),
        })),
      ...op.queryParams
        .filter((p) => p.schema.type === 'number' || p.schema.type === 'integer')
        .map((p) => ({ op, name: p.name, in: 'query' as const, value: p.name === 'limit' ? 20 : 7, slug: false })),
    ]);
  function idCase(target: IdTarget, variant: string): Case {
    const { op, name } = target;
    const encoded = encodeURIComponent(variant);
    const body = op.body === 'json' && op.bodyRequired ? JSON.stringify(example(op)) : undefined;
    return {
      label: `${op.label} ${name}=${JSON.stringify(variant)}`,
      method: op.method,
      url: target.in === 'path' ? url(op, { [name]: encoded }) : `${url(op)}?${name}=${encoded}`,
      headers: body ? { 'content-type': 'application/json' } : undefined,
      body,
      // An id-or-slug that is not all digits is a slug, which no item has.
      ...(target.slug && !/^0\d*$/.test(variant)
        ? {
            expect: [
              [404, 'not_found'],
              [400, 'invalid_value'],
            ] as Expected[],
          }
        : { expect: [400, 'validation_failed'] as Expected, paths: [name] }),
    };
  }

  it('5. ids and integers are canonical digits: 0x1, 1e0, +1, 1.0, spaces, 01 are a 400 naming the parameter', () =>
    unchanged(() => {
      expect(idTargets().filter((x) => ID_PARAMS.has(x.name)).length).toBeGreaterThanOrEqual(23);
      return run(idTargets().flatMap((target) => nonCanonical(target.value).map((variant) => idCase(target, variant))));
    }));

  it('5. generated: any sign, prefix, padding, exponent or fraction around a real id', () =>
    unchanged(() =>
      fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...idTargets()),
          fc.constantFrom('', '+', '-', '0', '00', ' ', '\t', '\n', '\u00a0', '0x', '0o', '0b'),
          fc.constantFrom('', '.0', '.000', 'e0', 'E0', 'e+0', ' ', '\t', '\r\n', '\u00a0', '\u0000'),
          async (target, prefix, suffix) => {
            fc.pre(prefix !== '' || suffix !== '');
            const radix = ({ '0x': 16, '0o': 8, '0b': 2 } as Record<string, number>)[prefix] ?? 10;
            await sendAndVerify(idCase(target, `${prefix}${target.value.toString(radix)}${suffix}`));
          },
        ),
        { seed: SEED, numRuns: RUNS * 2 },
      ),
    ));

  /** Where a forbidden key can go in each JSON body: the top, free-form objects, items of nested arrays. */
  function keyPlacements(op: Operation): Array<{
    where: string;
    text: (key: string, inner?: string[]) => string;
    path: (key: string, inner?: string[]) => string;
  }> {
    const nestObject = (key: string, inner: string[] = []) =>
      inner.reduceRight((acc, seg) => `{${JSON.stringify(seg)}:${acc}}`, `{${JSON.stringify(key)}:{"polluted":true}}`);
    const places = [
      {
        where: 'top',
        text: (key: string, inner: string[] = []) =>
          inner.length
            ? jsonWith(example(op), [[inner[0], nestObject(key, inner.slice(1))]])
            : jsonWith(example(op), [[key, '{"polluted":true}']]),
        path: (key: string, inner: string[] = []) => [...inner, key].join('.'),
      },
    ];
    for (const p of props(op)) {
      if (isFreeObject(p.schema)) {
        places.push({
          where: p.name,
          text: (key, inner = []) => jsonWith(example(op), [[p.name, nestObject(key, inner)]]),
          path: (key, inner = []) => [p.name, ...inner, key].join('.'),
        });
      }
      if (isNestedArray(p.schema)) {
        const item = JSON.stringify(exampleBody(resolve(doc, p.schema.items!))).slice(0, -1);
        places.push({
          where: `${p.name}[0]`,
          text: (key) => jsonWith(example(op), [[p.name, `[${item},${JSON.stringify(key)}:1}]`]]),
          path: (key) => `${p.name}.0.${key}`,
        });
      }
    }
    return places;
  }

  it('6. __proto__, constructor, prototype (and other Object.prototype names) are refused like unknown fields, at any depth', () =>
    unchanged(() =>
      run(
        jsonOps().flatMap((op) =>
          keyPlacements(op).flatMap((place) =>
            FORBIDDEN.map((key) =>
              jsonCase(op, `${key} at ${place.where}`, place.text(key), { paths: [place.path(key)] }),
            ),
          ),
        ),
      ),
    ));

  it('6. generated: forbidden keys under random paths', () =>
    unchanged(() =>
      fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...jsonOps()).chain((op) => fc.tuple(fc.constant(op), fc.constantFrom(...keyPlacements(op)))),
          fc.constantFrom(...FORBIDDEN),
          fc.array(
            fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,7}$/).filter((seg) => !FORBIDDEN_KEYS.has(seg)),
            { maxLength: 5 },
          ),
          async ([op, place], key, inner) => {
            const path = place.where.endsWith('[0]') ? [] : inner;
            await sendAndVerify(
              jsonCase(op, `${key} at ${place.where} ${path.join('.')}`, place.text(key, path), {
                paths: [place.path(key, path)],
              }),
            );
          },
        ),
        { seed: SEED, numRuns: RUNS },
      ),
    ));

  const nestedArrays = () =>
    jsonOps().flatMap((op) =>
      props(op)
        .filter((p) => isNestedArray(p.schema))
        .map((p) => ({ op, name: p.name, item: exampleBody(resolve(doc, p.schema.items!)) })),
    );

  it('7. nested arrays are validated as deeply as declared: [[]], [null], [1], [{}] are a 400', () =>
    unchanged(() => {
      expect(nestedArrays().length).toBeGreaterThanOrEqual(4);
      return run(
        nestedArrays().flatMap(({ op, name, item }) =>
          [
            '[[]]',
            '[null]',
            '[1]',
            '["x"]',
            '[true]',
            '[{}]',
            `[[${JSON.stringify(item)}]]`,
            `[${JSON.stringify({ ...item, extra: 1 })}]`,
          ].map((json) => jsonCase(op, `${name}: ${json}`, jsonWith(example(op), [[name, json]]), { under: name })),
        ),
      );
    }));

  it('7. generated: arrays holding anything but objects', () =>
    unchanged(() =>
      fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...nestedArrays()),
          fc.array(
            fc.oneof(
              fc.constant([]),
              fc.constant(null),
              fc.boolean(),
              fc.integer(),
              fc.string({ maxLength: 5 }),
              fc.array(fc.integer(), { maxLength: 2 }),
            ),
            { minLength: 1, maxLength: 5 },
          ),
          async ({ op, name }, items) => {
            await sendAndVerify(
              jsonCase(
                op,
                `${name}: ${JSON.stringify(items)}`,
                jsonWith(example(op), [[name, JSON.stringify(items)]]),
                { under: name },
              ),
            );
          },
        ),
        { seed: SEED, numRuns: RUNS },
      ),
    ));

  it('9. a body in a media type the route does not take is a 415, a missing one a 400: no silent no-op', () =>
    unchanged(() => {
      const cases: Case[] = [];
      for (const op of operations) {
        const base = { method: op.method, url: url(op) };
        if (op.body === 'json') {
          const body = JSON.stringify({
            ...example(op),
            ...Object.fromEntries(
              props(op)
                .slice(0, 1)
                .map((p) => [p.name, p.schema.example ?? 'x']),
            ),
          });
          for (const [type, text] of [
            ['text/plain', body],
            ['application/x-www-form-urlencoded', 'name=x'],
            ['application/xml', '<a>x</a>'],
            ['multipart/form-data; boundary=x', '--x--\r\n'],
            [undefined, body],
          ] as const) {
            // A route that also takes an HTML form (newsletter unsubscribe) validates it like JSON.
            const form = type === 'application/x-www-form-urlencoded' && op.formBody;
            cases.push({
              ...base,
              label: `${op.label} as ${type ?? 'no content type'}`,
              headers: type ? { 'content-type': type } : undefined,
              body: text,
              expect: form ? [400, 'validation_failed'] : [415, 'unsupported_media_type'],
            });
          }
          if (op.bodyRequired) {
            cases.push({ ...base, label: `${op.label} without a body`, expect: [400, 'missing_body'] });
            cases.push({
              ...base,
              label: `${op.label} with an empty JSON body`,
              headers: { 'content-type': 'application/json' },
              body: '',
              expect: [400, 'missing_body'],
            });
          }
        } else {
          // Routes that take no body, and uploads (multipart only): a JSON body is not theirs.
          cases.push({
            ...base,
            label: `${op.label} with a JSON body`,
            headers: { 'content-type': 'application/json' },
            body: '{}',
            expect: [415, 'unsupported_media_type'],
          });
        }
      }
      return run(cases);
    }));

  /** A property that takes any JSON value (a profile entry's `value`): nothing is of the wrong type for it. */
  const takesAnything = (s: Schema) => Array.isArray(s.anyOf);

  /**
   * A value of the wrong type for every property (dates get a boolean, nested arrays 20 empty
   * objects, 30 where the array takes that many: an order's lines have only two required fields).
   */
  function everythingWrong(op: Operation): Record<string, unknown> {
    return Object.fromEntries(
      props(op)
        .filter(({ schema }) => !takesAnything(schema))
        .map(({ name, schema }) => [
          name,
          isNestedArray(schema)
            ? Array(Math.max(20, Math.min(schema.maxItems ?? 20, 30))).fill({})
            : schema.format === 'date-time'
              ? true
              : schema.type === 'string'
                ? 123
                : 'x',
        ]),
    );
  }

  it('10. 100,000 invalid array items, or every field wrong at once: at most 50 errors, with the total', () =>
    unchanged(() =>
      run(
        jsonOps().flatMap((op) => [
          ...props(op)
            .filter((p) => p.schema.type === 'array')
            .map((p) => {
              const bad = p.schema.items?.type === 'string' || isNestedArray(p.schema) ? '0' : '"x"';
              return jsonCase(
                op,
                `${p.name}: 100,000 bad items`,
                jsonWith(example(op), [[p.name, `[${Array(100_000).fill(bad).join(',')}]`]]),
                {
                  under: p.name,
                  check: (res) => expect(JSON.stringify(res.body).length).toBeLessThan(2048),
                },
              );
            }),
          ...(props(op).every((p) => takesAnything(p.schema)) ? [] : [op]).map((o) =>
            jsonCase(o, 'every field wrong', JSON.stringify(everythingWrong(o)), {
              check: (res) => {
                const { errors, totalErrors } = res.body as { errors: unknown[]; totalErrors?: number };
                expect(errors.length).toBeLessThanOrEqual(50);
                if (totalErrors !== undefined)
                  expect({ listed: errors.length, more: totalErrors > 50 }).toEqual({ listed: 50, more: true });
                if (props(o).some((p) => isNestedArray(p.schema))) expect(totalErrors).toBeGreaterThan(50);
              },
            }),
          ),
        ]),
      ),
    ));

  it('11. without a key, a body for a key-only route is never parsed: malformed JSON and bad charsets are a 401', () =>
    unchanged(() =>
      run(
        operations.flatMap((op) =>
          [
            ['malformed JSON', 'application/json', '{"a":'],
            ['a bad charset', 'application/json; charset=klingon', '{}'],
          ].map(([what, type, body]): Case => ({
            label: `${op.label} anonymous ${what}`,
            method: op.method,
            url: url(op),
            anonymous: true,
            headers: { 'content-type': type },
            body,
            expect: op.isPublic
              ? op.body === 'json'
                ? what === 'malformed JSON'
                  ? [400, 'malformed_json']
                  : [415, 'unsupported_media_type']
                : [415, 'unsupported_media_type']
              : [401, anonymousCode(op)],
          })),
        ),
      ),
    ));

  it('the snapshot sees a real change, and its outbox event', async () => {
    const before = await snapshotDatabase(t.db);
    await tenant.api
      .patch(`/api/v2/sites/${tenant.siteName}/collections/${ids.collection}`)
      .send({ name: 'Renamed' })
      .expect(200);
    const after = await snapshotDatabase(t.db);
    expect(
      Object.keys(after)
        .filter((table) => after[table] !== before[table])
        .sort(),
    ).toEqual(['collections', 'outbox_events']);
  });
});
