import request from 'supertest';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { SessionsService } from '../../src/users/sessions.service';
import { startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { makePng } from '../support/files';
import type { OpenApiDocument, Schema } from '../support/openapi-operations';
import { missingExamples, sampleOf } from '../support/openapi-examples';

/** The key `npm start` would print, chosen as BOOTSTRAP_API_KEY lets an operator choose it. */
const KEY = `sb_live_${'Ex4'.repeat(13)}Z`;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * Operations whose example does not run yet against a fresh start, each with what it lacks
 * (issue #31 row 2, left for later): the test fails when one of them runs (take it off) and when
 * any other does not. The list only shrinks.
 */
const USER = 'no site user on a fresh start (request-otp makes none until verify-otp; the demo seed makes none)';
const SUBSCRIPTION = 'no subscription: it needs a paid order of a recurring product';
const WEBHOOK = 'the create example’s URL (hooks.example.com) does not resolve, so no endpoint exists';
const ORDER = 'no order: the create example’s product is not for sale on a fresh start';
const SERIES = 'the create example’s steps name no newsletter.campaign template';
const LIST = 'the examples name list 2; a fresh start has none';
const NOT_YET: Record<string, string> = {
  'POST /api/v2/sites/{siteName}/collections/{id}/items': '404: Content not found',
  'POST /api/v2/sites/{siteName}/email/send':
    '400: Give exactly one of templateType, templateId, or subject with html or text',
  'POST /api/v2/sites/{siteName}/users/{id}/credits/grant': USER,
  'POST /api/v2/sites/{siteName}/users/{id}/credits/spend': USER,
  'POST /api/v2/sites/{siteName}/users/{id}/subscriptions/{subId}/charges': SUBSCRIPTION,
  'POST /api/v2/sites/{siteName}/orders': ORDER,
  'POST /api/v2/sites/{siteName}/webhooks': WEBHOOK,
  'POST /api/v2/sites/{siteName}/webhooks/{id}/deliveries/{deliveryId}/retry': WEBHOOK,
  'POST /api/v2/sites/{siteName}/newsletter/subscriptions/import': LIST,
  'POST /api/v2/sites/{siteName}/newsletter/series': SERIES,
  'GET /api/v2/account/deletion': '404: Deletion request not found',
  'GET /v1/{site_name}/pages/{page_id}': '404: Content not found',
  'GET /api/v2/sites/{siteName}/content/{id}': '404: Content not found',
  'GET /api/v2/sites/{siteName}/collections/current': '404: Current collection not found',
  'GET /api/v2/sites/{siteName}/users/me': USER,
  'GET /api/v2/sites/{siteName}/users/me/deletion-preview': USER,
  'GET /api/v2/sites/{siteName}/users/me/deletion': USER,
  'GET /api/v2/sites/{siteName}/users/me/credits': USER,
  'GET /api/v2/sites/{siteName}/users/me/credits/balance': USER,
  'GET /api/v2/sites/{siteName}/users/me/profile': USER,
  'GET /api/v2/sites/{siteName}/users/me/subscriptions': USER,
  'GET /api/v2/sites/{siteName}/users/{id}': USER,
  'GET /api/v2/sites/{siteName}/users/{id}/profile': USER,
  'GET /api/v2/sites/{siteName}/users/{id}/credits/balance': USER,
  'GET /api/v2/sites/{siteName}/users/{id}/credits': USER,
  'GET /api/v2/sites/{siteName}/users/{id}/subscriptions': SUBSCRIPTION,
  'GET /api/v2/sites/{siteName}/orders/{id}': ORDER,
  'GET /api/v2/sites/{siteName}/webhooks/{id}': WEBHOOK,
  'GET /api/v2/sites/{siteName}/webhooks/{id}/deliveries': WEBHOOK,
  'GET /api/v2/sites/{siteName}/webhooks/{id}/deliveries/{deliveryId}': WEBHOOK,
  'GET /api/v2/sites/{siteName}/newsletter/imports/{id}': LIST,
  'GET /api/v2/sites/{siteName}/newsletter/series/{id}': SERIES,
  'PATCH /api/v2/sites/{siteName}/users/me': USER,
  'POST /api/v2/sites/{siteName}/users/me/verify-email': USER,
  'POST /api/v2/sites/{siteName}/users/me/sign-out': USER,
  'PUT /api/v2/sites/{siteName}/users/me/profile/{key}': USER,
  'POST /api/v2/sites/{siteName}/users/me/subscriptions/{id}/pause': USER,
  'POST /api/v2/sites/{siteName}/users/me/subscriptions/{id}/resume': USER,
  'POST /api/v2/sites/{siteName}/users/me/subscriptions/{id}/cancel': USER,
  'POST /api/v2/sites/{siteName}/users/me/subscriptions/{id}/change-plan': USER,
  'PATCH /api/v2/sites/{siteName}/users/{id}': USER,
  'POST /api/v2/sites/{siteName}/users/{id}/subscriptions/{subId}/pause': SUBSCRIPTION,
  'POST /api/v2/sites/{siteName}/users/{id}/subscriptions/{subId}/resume': SUBSCRIPTION,
  'POST /api/v2/sites/{siteName}/users/{id}/subscriptions/{subId}/cancel': SUBSCRIPTION,
  'POST /api/v2/sites/{siteName}/users/{id}/subscriptions/{subId}/change-plan': SUBSCRIPTION,
  'POST /api/v2/sites/{siteName}/users/{id}/subscriptions/{subId}/charges/{chargeId}/pay': SUBSCRIPTION,
  'PATCH /api/v2/sites/{siteName}/orders/{id}/fulfillment': ORDER,
  'PATCH /api/v2/sites/{siteName}/orders/{id}/payment': ORDER,
  'PATCH /api/v2/sites/{siteName}/webhooks/{id}': WEBHOOK,
  'POST /api/v2/sites/{siteName}/webhooks/{id}/test': WEBHOOK,
  'POST /api/v2/sites/{siteName}/webhooks/{id}/rotate-secret': WEBHOOK,
  'POST /api/v2/sites/{siteName}/newsletter/subscriptions/{id}/list-membership': LIST,
  'POST /api/v2/sites/{siteName}/newsletter/subscriptions/bulk': '400: ids give either ids or filter',
  'PATCH /api/v2/sites/{siteName}/newsletter/series/{id}': SERIES,
  'DELETE /api/v2/api-keys/{id}': '409: This is the account’s last unrestricted key; create another before revoking it',
  'DELETE /api/v2/sites/{siteName}/content/{id}': '404: Content not found',
  'DELETE /api/v2/sites/{siteName}/collections/{id}/items/{itemId}': '404: Collection not found',
  'DELETE /api/v2/sites/{siteName}/email/templates/{templateId}':
    '409: A published template cannot be deleted: clone it, edit the clone, publish it',
  'DELETE /api/v2/sites/{siteName}/products/{id}/variants/{variantId}': '404: Product not found',
  'DELETE /api/v2/sites/{siteName}/users/me': USER,
  'DELETE /api/v2/sites/{siteName}/users/me/deletion': USER,
  'DELETE /api/v2/sites/{siteName}/users/me/profile/{key}': USER,
  'DELETE /api/v2/sites/{siteName}/webhooks/{id}': WEBHOOK,
  'DELETE /api/v2/sites/{siteName}/newsletter/series/{id}': SERIES,
};

type Param = { name: string; in: string; required?: boolean; example?: unknown; schema?: Schema };
type Op = {
  parameters?: Param[];
  requestBody?: { content: Record<string, { schema: Schema }> };
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
  let session: string;

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

  it('runs each operation with its examples, in order: creates, reads, changes, deletes', async () => {
    const failed: string[] = [];
    const ran: string[] = [];
    for (const step of steps) {
      const res = await send(step);
      const want = expectedStatus(step.op);
      if (res.status === want) ran.push(step.label);
      else failed.push(`${step.label}: ${res.status}, documented ${want} ${JSON.stringify(res.body).slice(0, 240)}`);
    }
    expect(failed.filter((f) => !(f.slice(0, f.indexOf(':')) in NOT_YET))).toEqual([]);
    // Listed as not running yet, and now running: take it off NOT_YET.
    expect(ran.filter((label) => label in NOT_YET)).toEqual([]);
  }, 120000);

  /** Creates (a POST answering 201, or 202: a request-otp makes its user) first, then reads, changes, deletes. */
  function phase({ method, op }: Step): number {
    if (method === 'post' && (op.responses['201'] || op.responses['202'])) return 0;
    if (method === 'get') return 1;
    return method === 'delete' ? 3 : 2;
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
    if (schemes.has('apiKey')) req = req.set('x-api-key', KEY);
    // `/users/me/**`: Authorize with the session a sign-in (request-otp, then verify-otp with the mailed code) gives.
    else if (schemes.has('session')) req = req.set('authorization', `Bearer ${await sessionOfFirstUser()}`);
    for (const h of params.filter((p) => p.in === 'header' && p.required)) req = req.set(h.name, String(value(h)));
    const content = op.requestBody?.content ?? {};
    if (content['application/json']) return req.send(sampleOf(doc, content['application/json'].schema) as object);
    if (content['multipart/form-data']) {
      // A file field is the one thing a person chooses: a small PNG.
      const form = sampleOf(doc, content['multipart/form-data'].schema) as Record<string, unknown>;
      for (const [k, v] of Object.entries(form)) {
        if (k === 'file') req = req.attach('file', await makePng(8, 8), 'example.png');
        else req = req.field(k, typeof v === 'string' ? v : JSON.stringify(v));
      }
    }
    return req;
  }

  async function sessionOfFirstUser(): Promise<string> {
    if (session) return session;
    const user = await t.db.getRepository(SiteUserEntity).findOneBy({ id: 1 });
    if (!user) return 'no-user-yet';
    ({ token: session } = await t.db.transaction((em) => t.app.get(SessionsService).create(em, user, {})));
    return session;
  }
});
