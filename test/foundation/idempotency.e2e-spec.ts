import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { fakeDns } from '../support/dns';
import { snapshotDatabase } from '../support/db-snapshot';
import { makePdf, tempMediaDir } from '../support/files';
import { exampleBody, loadOperations, OpenApiDocument, Operation } from '../support/openapi-operations';
import { expectProblem } from '../support/problem';
import { operationUrl, ResourceFixtures, seedResources } from '../support/resource-fixtures';
import { createTenant, Tenant } from '../support/tenant';

/**
 * `Idempotency-Key` over every POST of the app's own document (docs/foundation.md, "Idempotency").
 * Every POST documents the header with its bounds, and proves it reads it: a key already used on
 * another route is a 409 `idempotency_key_reused` with the database unchanged, a 256-character key
 * a 400. The POSTs of SUCCESSES are also retried: the retry replays status, body and `Location`
 * with `Idempotent-Replayed: true` and changes nothing, and the same key with another body is a 409.
 */

type Caller = 'key' | 'session' | 'anonymous';
interface Success {
  /** A JSON body, or a multipart form (`file` plus fields). */
  body?: Record<string, unknown>;
  form?: { fields?: Record<string, string>; file: Buffer; name: string };
  /** Another body for the 409 (a JSON route with no body takes `{}` like none: another route is used then). */
  other?: Record<string, unknown>;
}

const V2 = '/api/v2/sites/{siteName}';
const csv = (email: string) => Buffer.from(`email\n${email}\n`);

/** Requests that succeed on the fixtures, in the order they run (state moves: publish before clone). */
function successes(f: ResourceFixtures): Record<string, Success> {
  const n = randomUUID().slice(0, 8);
  const { ids } = f;
  return {
    'POST /api/v2/api-keys': { body: { name: `idem ${n}` } },
    // A retried roll must not roll again: that would end the first new secret's life at once.
    'POST /api/v2/api-keys/{id}/roll': { body: { gracePeriodSeconds: 60 } },
    'POST /api/v2/sites': { body: { name: `idem-${n}` } },
    'POST /api/v2/sender-domains': { body: { domain: `idem-${n}.example` } },
    [`POST ${V2}/content`]: { body: { title: `Idem ${n}` } },
    [`POST ${V2}/content/{id}/publish`]: {},
    [`POST ${V2}/collections`]: { body: { name: `Idem ${n}` } },
    [`POST ${V2}/media/categories`]: { body: { name: `Idem ${n}` } },
    [`POST ${V2}/media/tags`]: { body: { name: `Idem ${n}` } },
    [`POST ${V2}/media`]: { form: { file: makePdf(`Idem ${n}`), name: 'idem.pdf' } },
    'POST /v1/{site_name}/pages': { body: { title: `Idem ${n}`, content: '<p>x</p>', page_type: 'post' } },
    [`POST ${V2}/email/templates`]: {
      body: { type: 'custom', name: `Idem ${n}`, subject: '{{ subject }}', html: '{{ body }}' },
    },
    [`POST ${V2}/email/send`]: { body: { to: [{ email: `idem-${n}@example.com` }], subject: 'Idem', text: 'x' } },
    [`POST ${V2}/webhooks`]: {
      body: { url: `https://93.184.215.14/idem-${n}`, status: 'disabled', eventTypes: ['content.*'] },
    },
    [`POST ${V2}/categories`]: { body: { name: `Idem ${n}` } },
    [`POST ${V2}/products`]: { body: { name: `Idem ${n}`, unitAmount: 100, currency: 'EUR' } },
    [`POST ${V2}/products/{id}/variants`]: { body: { option1Value: `V${n}` } },
    [`POST ${V2}/orders`]: {
      body: { lines: [{ productId: ids.product, quantity: 1 }], customer: { email: `idem-${n}@example.com` } },
    },
    [`POST ${V2}/contacts`]: { body: { name: 'Idem', email: `idem-${n}@example.com`, message: 'Idem' } },
    [`POST ${V2}/users/{id}/credits/grant`]: { body: { amount: 5, reason: 'Idem' } },
    [`POST ${V2}/users/{id}/subscriptions/{subId}/charges`]: { body: { amount: 100, description: `Idem ${n}` } },
    [`POST ${V2}/newsletter/lists`]: { body: { name: `Idem ${n}` } },
    [`POST ${V2}/newsletter/campaigns`]: { body: { name: `Idem ${n}`, listIds: [ids.newsletterList] } },
    [`POST ${V2}/newsletter/series`]: {
      body: {
        name: `Idem ${n}`,
        listIds: [ids.newsletterList],
        steps: [{ delaySeconds: 0, subject: 'Idem', html: '<p>x</p>' }],
      },
    },
    [`POST ${V2}/newsletter/subscriptions/sync`]: {
      body: { listId: ids.newsletterList, emails: [`idem-${n}@example.com`] },
    },
    [`POST ${V2}/newsletter/subscriptions/bulk`]: { body: { action: 'unsubscribe', ids: [ids.subscription] } },
    [`POST ${V2}/newsletter/subscriptions/import`]: {
      form: { fields: { listIds: String(ids.newsletterList) }, file: csv(`idem-${n}@example.com`), name: 'idem.csv' },
    },
    [`POST ${V2}/email/templates/{templateId}/clone`]: {},
    [`POST ${V2}/webhooks/{id}/rotate-secret`]: {},
  };
}

describe('Idempotency-Key on every POST', () => {
  const media = tempMediaDir('idempotency');
  let t: TestApp;
  let a: Tenant;
  let f: ResourceFixtures;
  let doc: OpenApiDocument;
  let posts: Operation[];
  /** A key stored by a successful request, per caller and site (or account): any other route must refuse it. */
  const used: Record<string, string> = {};
  /** The operation that stored each of them (there, the key replays). */
  const storedBy: Record<string, string> = {};
  const POSTMARK_TOKEN = randomBytes(24).toString('base64url');
  const scopeOf = (op: Operation, caller: Caller) =>
    `${caller}:${/\{(siteName|site_name|project_id)\}/.test(op.path) ? 'site' : 'account'}`;

  beforeAll(async () => {
    t = await startApp({
      env: {
        MEDIA_LOCAL_DIR: media.dir,
        JOBS_ENABLED: 'false',
        // The email providers' routes answer 404 until configured: configured, they are POSTs like any other.
        MAILGUN_WEBHOOK_SIGNING_KEY: `key-${randomBytes(16).toString('hex')}`,
        POSTMARK_WEBHOOK_TOKEN: POSTMARK_TOKEN,
        SENDGRID_WEBHOOK_PUBLIC_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' })
          .publicKey.export({ format: 'der', type: 'spki' })
          .toString('base64'),
      },
      extraModules: [fakeDns().module],
    });
    a = await createTenant(t);
    f = await seedResources(t, a);
    ({ doc } = await loadOperations(t.server));
    posts = (await loadOperations(t.server)).operations.filter((op) => op.method === 'post');
  });
  afterAll(async () => {
    await t?.close();
    media.remove();
  });

  const callerOf = (op: Operation): Caller => (op.sessionOnly ? 'session' : op.isPublic ? 'anonymous' : 'key');

  function send(op: Operation, caller: Caller, key: string | undefined, spec: Success = {}): request.Test {
    let req = request(t.server).post(operationUrl(f, op));
    if (caller === 'key') req = req.set('x-api-key', a.key);
    if (caller === 'session') req = req.set('Authorization', `Bearer ${f.sessionToken}`);
    if (key !== undefined) req = req.set('Idempotency-Key', key);
    if (spec.form) {
      for (const [name, value] of Object.entries(spec.form.fields ?? {})) req = req.field(name, value);
      return req.attach('file', spec.form.file, spec.form.name);
    }
    return spec.body === undefined ? req : req.send(spec.body);
  }

  /** A body that gets past the guards (the key is judged before the body is validated). */
  const probe = (op: Operation): Success =>
    op.body === 'multipart'
      ? { form: { file: makePdf('probe'), name: 'probe.pdf' } }
      : op.body === 'json' && op.bodyRequired
        ? { body: exampleBody(op.schema ?? {}) }
        : {};

  it('every POST documents Idempotency-Key (1 to 255 characters) with its 400 and 409, or why it opts out', () => {
    expect(posts.length).toBeGreaterThan(50);
    for (const op of posts) {
      const raw = doc.paths[op.path].post as unknown as {
        parameters?: Array<{ name: string; in: string; schema?: Record<string, unknown> }>;
        'x-sitebase-idempotency'?: { reason: string };
      };
      const header = raw.parameters?.find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
      if (raw['x-sitebase-idempotency']) {
        expect([op.label, header]).toEqual([op.label, undefined]);
        expect(raw['x-sitebase-idempotency'].reason).toMatch(/\w+/);
        continue;
      }
      expect([op.label, header?.schema]).toEqual([op.label, { type: 'string', minLength: 1, maxLength: 255 }]);
      expect([op.label, op.responses.includes(400), op.responses.includes(409)]).toEqual([op.label, true, true]);
    }
  });

  it('the table of retried POSTs names only operations of the document', () => {
    const labels = new Set(posts.map((op) => op.label));
    for (const label of Object.keys(successes(f))) expect([label, labels.has(label)]).toEqual([label, true]);
  });

  it('a retry replays the first answer and does nothing again; the same key with another body is a 409', async () => {
    const table = successes(f);
    for (const [label, spec] of Object.entries(table)) {
      const op = posts.find((o) => o.label === label)!;
      const caller = callerOf(op) === 'anonymous' ? 'key' : callerOf(op);
      const key = `replay-${randomUUID()}`;
      const first = await send(op, caller, key, spec);
      expect([label, first.status, first.headers['idempotent-replayed']]).toEqual([label, first.status, undefined]);
      expect([label, first.status >= 200 && first.status < 300, first.body]).toEqual([label, true, first.body]);
      const before = await snapshotDatabase(t.db);
      const again = await send(op, caller, key, spec);
      expect([label, again.status, again.headers['idempotent-replayed']]).toEqual([label, first.status, 'true']);
      expect([label, again.body]).toEqual([label, first.body]);
      expect([label, again.headers.location]).toEqual([label, first.headers.location]);
      const other: Success = spec.form
        ? { form: { ...spec.form, file: Buffer.concat([spec.form.file, Buffer.from('\n')]) } }
        : spec.body
          ? { body: { ...spec.body, idempotencyProbe: 1 } }
          : {};
      const reused = spec.form || spec.body ? await send(op, caller, key, other) : undefined;
      if (reused) expectProblem(reused, 409, 'idempotency_key_reused');
      expect([label, await snapshotDatabase(t.db)]).toEqual([label, before]);
      used[scopeOf(op, caller)] = key;
      storedBy[scopeOf(op, caller)] = label;
    }
  });

  it('every POST reads the header: a key used on another route is a 409, a 256-character key a 400, nothing changes', async () => {
    // A stored key of each caller (the table above made the key's; these, the others').
    const contacts = posts.find((op) => op.label === `POST ${V2}/contacts`)!;
    used['anonymous:site'] = `anon-${randomUUID()}`;
    const anon = await send(contacts, 'anonymous', used['anonymous:site'], {
      body: { name: 'Idem', email: 'idem-anon@example.com', message: 'Idem' },
    });
    expect(anon.status).toBe(201);
    storedBy['anonymous:site'] = contacts.label;
    const pause = posts.find((op) => op.label === `POST ${V2}/users/me/subscriptions/{id}/pause`)!;
    used['session:site'] = `session-${randomUUID()}`;
    expect((await send(pause, 'session', used['session:site'])).status).toBe(200);
    storedBy['session:site'] = pause.label;
    expect([used['key:site'], used['key:account']]).toEqual([expect.any(String), expect.any(String)]);
    // An anonymous caller outside any site: a provider's webhook, with its token (an event of no message of ours).
    const postmark = posts.find((op) => op.label === `POST /api/v2/email/providers/postmark/events`)!;
    used['anonymous:account'] = `anon-account-${randomUUID()}`;
    const stored = await send(postmark, 'anonymous', used['anonymous:account'], {
      body: { RecordType: 'Delivery', MessageID: 'idem', Recipient: 'idem@example.com' },
    }).set('x-sitebase-webhook-token', POSTMARK_TOKEN);
    expect(stored.status).toBe(200);
    storedBy['anonymous:account'] = postmark.label;

    for (const op of posts) {
      const caller = callerOf(op);
      const before = await snapshotDatabase(t.db);
      const tooLong = await send(op, caller, 'k'.repeat(256), probe(op));
      expect([op.label, tooLong.status, tooLong.body.code]).toEqual([op.label, 400, 'invalid_idempotency_key']);
      const reused = await send(op, caller, used[scopeOf(op, caller)], probe(op));
      if (storedBy[scopeOf(op, caller)] === op.label) {
        // The route that stored the key: another body there is the 409, the same one the replay.
        expect([op.label, reused.status]).toEqual([
          op.label,
          reused.headers['idempotent-replayed'] ? reused.status : 409,
        ]);
      } else {
        expect([op.label, reused.status, reused.body.code]).toEqual([op.label, 409, 'idempotency_key_reused']);
      }
      expect([op.label, await snapshotDatabase(t.db)]).toEqual([op.label, before]);
    }
  });

  it('two identical requests at once make one resource, and both answer it', async () => {
    const op = posts.find((o) => o.label === `POST ${V2}/content`)!;
    const key = `race-${randomUUID()}`;
    const spec = { body: { title: `Race ${key}` } };
    const answers = await Promise.all([send(op, 'key', key, spec), send(op, 'key', key, spec)]);
    expect(answers.map((r) => r.status)).toEqual([201, 201]);
    expect(answers[0].body.id).toBe(answers[1].body.id);
    expect(answers.map((r) => r.headers['idempotent-replayed']).sort()).toEqual(['true', undefined]);
    const rows = await t.db.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM content_items WHERE site_id = $1 AND title = $2`,
      [a.siteId, spec.body.title],
    );
    expect(rows[0].n).toBe(1);
  });

  it('keys are per credential and site: another key of the account, or another site, starts afresh', async () => {
    const content = posts.find((o) => o.label === `POST ${V2}/content`)!;
    const key = `scope-${randomUUID()}`;
    const body = { title: `Scope ${key}` };
    const first = await send(content, 'key', key, { body }).expect(201);
    const other = await request(t.server)
      .post('/api/v2/api-keys')
      .set('x-api-key', a.key)
      .send({ name: `other ${key}` })
      .expect(201);
    const second = await request(t.server)
      .post(`/api/v2/sites/${a.siteName}/content`)
      .set('x-api-key', other.body.key as string)
      .set('Idempotency-Key', key)
      .send(body)
      .expect(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.body.id).not.toBe(first.body.id);
  });
});
