import request from 'supertest';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { SessionsService } from '../../src/users/auth/sessions.service';
import { startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { makePng } from '../support/files';
import type { OpenApiDocument, Schema } from '../support/openapi-operations';
import { missingExamples, sampleOf } from '../support/openapi-examples';

/** The key `npm start` would print, chosen as BOOTSTRAP_API_KEY lets an operator choose it. */
const KEY = `sb_live_${'Ex4'.repeat(13)}Z`;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * The conflicts a create's second run may answer (by operation): what it makes is named by the
 * thing itself, not by a slug the server makes free, and the 409 says so.
 */
const NATURAL_KEYS: Record<string, [code: string, because: string]> = {
  createVariantProduct: ['duplicate_variant', 'a variant is its option values'],
  createSuppression: ['already_suppressed', 'an address is suppressed once'],
  createSite: ['duplicate_site_name', "a site's name is its address"],
  createSenderDomain: ['domain_exists', 'a sender domain is its name'],
  createMediaCategory: ['duplicate_slug', "a media category is its name (the slug is the name's, never suffixed)"],
  createMediaTag: ['duplicate_slug', "a media tag is its name (the slug is the name's, never suffixed)"],
};

type Param = { name: string; in: string; required?: boolean; example?: unknown; schema?: Schema };
type Op = {
  operationId: string;
  parameters?: Param[];
  requestBody?: { content: Record<string, { schema: Schema; example?: unknown }> };
  responses: Record<string, unknown>;
  security?: Array<Record<string, string[]>>;
  'x-sitebase-example-answers'?: number;
};
type Doc = OpenApiDocument & { paths: Record<string, Record<string, Op>> };
type Step = { label: string; path: string; method: (typeof METHODS)[number]; op: Op };

/**
 * Every example in the document runs (docs/openapi.md, "Examples that run"): on a fresh database
 * started as `npm start` starts it (BOOTSTRAP_ENABLED: the account, the site `demo`, a key), each
 * operation is sent as Swagger UI's "Try it out" sends it untouched — path parameters and required
 * query parameters from their examples, the body Swagger UI builds from the properties' examples —
 * and must answer its documented success, or the status its route declares with `exampleAnswers`.
 * Creates run first and deletes last, so the ids the examples name (1: a fresh site's first of
 * each) exist when they are read, changed and deleted.
 */
describe('every example in the document runs against what a fresh `npm start` makes', () => {
  let t: TestApp;
  let doc: Doc;
  let steps: Step[];
  /** The key's secret the examples are sent with: the one `npm start` printed, then a roll's. */
  let key = KEY;

  beforeAll(async () => {
    t = await startApp({
      databaseUrl: await createFreshDatabase('examples'),
      env: { BOOTSTRAP_ENABLED: 'true', BOOTSTRAP_API_KEY: KEY },
    });
    doc = (await request(t.server).get('/docs/openapi.json').expect(200)).body as Doc;
    steps = Object.entries(doc.paths)
      .flatMap(([path, item]) =>
        METHODS.filter((m) => item[m]).map((method) => ({
          label: `${method.toUpperCase()} ${path}`,
          path,
          method,
          op: item[method],
        })),
      )
      .map((step, index) => ({ step, index }))
      .sort((a, b) => phase(a.step) - phase(b.step) || a.index - b.index)
      .map(({ step }) => step);
  }, 60000);
  afterAll(() => t?.close());

  it('gives every request body property Swagger UI cannot make up an example (a pattern, a URI)', () => {
    const missing = Object.values(doc.paths).flatMap((item) =>
      METHODS.flatMap((m) =>
        Object.values(item[m]?.requestBody?.content ?? {}).flatMap(({ schema }) =>
          missingExamples(doc, schema, schema.$ref?.replace('#/components/schemas/', '') ?? ''),
        ),
      ),
    );
    expect([...new Set(missing)]).toEqual([]);
  });

  it('runs each operation with its examples, in order: creates, reads, changes, cancels, deletes', async () => {
    const failed: string[] = [];
    for (const step of steps) {
      // A create is executed twice, as a person clicks Execute again: its example must not name
      // what the first run made unique (a slug: left out, so the server makes a free one).
      const twice = step.method === 'post' && step.op.operationId.startsWith('create');
      for (const run of twice ? ['', ' (again)'] : ['']) {
        const res = await send(step);
        const conflict = (res.body as { code?: string }).code ?? '';
        if (run && res.status === 409 && conflict === NATURAL_KEYS[step.op.operationId]?.[0]) continue;
        // Rolling the key replaces its secret: from then on the new one is sent, as a person trying
        // the examples in Swagger UI authorizes again with it (a replaced secret cannot manage keys).
        if (step.path.endsWith('/roll') && res.status === 200) key = (res.body as { key: string }).key;
        const want = expectedStatus(step.op);
        if (res.status !== want)
          failed.push(
            `${step.label}${run}: ${res.status}, documented ${want} ${JSON.stringify(res.body).slice(0, 240)}`,
          );
      }
    }
    expect(failed).toEqual([]);
  }, 120000);

  /**
   * Creates (a POST answering 201, or 202: a request-otp makes its user) first, then reads, withdrawals
   * (a fresh start's page is published, and the changes' examples schedule it, which only a draft
   * can be), changes, cancels (after which a subscription takes no other change), deletes. Within a
   * phase, the document's order.
   */
  function phase({ path, method, op }: Step): number {
    if (method === 'post' && (op.responses['201'] || op.responses['202'])) return 0;
    if (method === 'get') return 1;
    if (method === 'post' && path.endsWith('/unpublish')) return 1.5;
    if (method === 'post' && path.endsWith('/cancel')) return 3;
    if (method !== 'delete') return 2;
    // Deletes of one item, what is inside another (a collection's item) before what holds it; then the
    // account-wide ones (scheduling a deletion, then canceling it).
    return path.endsWith('}') ? 4 - path.split('/').length / 100 : 5;
  }

  function expectedStatus(op: Op): number {
    return (
      op['x-sitebase-example-answers'] ??
      Math.min(
        ...Object.keys(op.responses)
          .map(Number)
          .filter((s) => s >= 200 && s < 400),
      )
    );
  }

  async function send({ path, method, op }: Step) {
    const params = op.parameters ?? [];
    const value = (p: Param) => p.example ?? p.schema?.example;
    const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const param = params.find((p) => p.in === 'path' && p.name === name);
      return encodeURIComponent(String(param && value(param)));
    });
    // Optional query parameters are left empty, as Swagger UI leaves them (their example is in the description).
    const query = params.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${String(value(p))}`);
    let req = request(t.server)[method](query.length ? `${url}?${query.join('&')}` : url);
    const schemes = new Set((op.security ?? []).flatMap((s) => Object.keys(s)));
    if (schemes.has('apiKey')) req = req.set('x-api-key', key);
    // `/users/me/**`: Authorize with the session a sign-in (request-otp, then verify-otp with the mailed code)
    // gives the demo's customer (user 1); a new one each time, as after the sign-out example a person signs in again.
    else if (schemes.has('session')) req = req.set('authorization', `Bearer ${await sessionOfFirstUser()}`);
    for (const h of params.filter((p) => p.in === 'header' && p.required)) req = req.set(h.name, String(value(h)));
    const content = op.requestBody?.content ?? {};
    // A whole-body example (a route's bodyExample) is what Swagger UI fills in; else it builds one from the properties'.
    const body = (media: { schema: Schema; example?: unknown }) => media.example ?? sampleOf(doc, media.schema);
    if (content['application/json']) return req.send(body(content['application/json']) as object);
    if (content['multipart/form-data']) {
      // A file field is the one thing a person chooses: the file its example's text is (a CSV), else a small PNG.
      const schema = content['multipart/form-data'].schema;
      const fileText = schema.properties?.file?.example;
      const form = sampleOf(doc, schema) as Record<string, unknown>;
      for (const [k, v] of Object.entries(form)) {
        if (k === 'file' && typeof fileText === 'string')
          req = req.attach('file', Buffer.from(fileText), 'example.csv');
        else if (k === 'file') req = req.attach('file', await makePng(8, 8), 'example.png');
        else req = req.field(k, typeof v === 'string' ? v : JSON.stringify(v));
      }
    }
    return req;
  }

  async function sessionOfFirstUser(): Promise<string> {
    const user = await t.db.getRepository(SiteUserEntity).findOneByOrFail({ id: 1 });
    return (await t.db.transaction((em) => t.app.get(SessionsService).create(em, user, {}))).token;
  }
});
