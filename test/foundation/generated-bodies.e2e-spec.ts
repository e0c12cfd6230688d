import fc from 'fast-check';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { unlimitedBudgets } from '../support/budgets';
import { snapshotDatabase } from '../support/db-snapshot';
import { fakeDns } from '../support/dns';
import { filesUnder, tempMediaDir } from '../support/files';
import { loadOperations, OpenApiDocument, Operation, resolve, Schema } from '../support/openapi-operations';
import { expectOrFix } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { bodyIdFor, operationUrl, ResourceFixtures, seedResources } from '../support/resource-fixtures';
import { brokenBody, BrokenBody, validValue } from '../support/schema-arbitrary';
import { createTenant } from '../support/tenant';
import { limitFor } from '../support/time-scale';

/*
 * The two generated directions of the input rules (docs/testing.md, "Generated bodies"), over
 * every operation of the document that takes a JSON body:
 *
 * - a body the document's schema calls valid is accepted: a 2xx, a documented business 4xx
 *   (404, 409, 412, 422, 429 …), or a 400 whose every error names a property the document marks
 *   `x-sitebase-checked` (a rule against other fields or stored data, said in its description);
 * - a valid body with one documented constraint broken is a 400 naming that property, and
 *   changes nothing (every table, outbox included, and every stored file).
 */

const SEED = 30;
/** Refusals of the caller's credential: a valid body with a good key or session never meets them. */
const CREDENTIAL_CODES = [
  'missing_credential',
  'missing_api_key',
  'invalid_api_key',
  'missing_session',
  'invalid_session',
];
const VALID_PER_OPERATION = 6;
const BROKEN_PER_OPERATION = 8;
/** About this many operations take a JSON body (the first test holds the floor): for the time limits. */
const OPERATIONS = 70;
/** A request, with its share of seeding and checking, on an idle machine. */
const MS_PER_REQUEST = 100;

type Doc = OpenApiDocument;

describe('generated bodies: valid ones are accepted, one broken constraint is a 400', () => {
  const media = tempMediaDir('generated');
  let t: TestApp;
  let doc: Doc;
  let operations: Operation[];
  let fixtures: ResourceFixtures;
  let sent = 0;
  let summary = '';

  beforeAll(async () => {
    t = await startApp({
      env: { MEDIA_LOCAL_DIR: media.dir, ...unlimitedBudgets() },
      extraModules: [fakeDns().module],
      freshDatabase: 'generated-bodies',
    });
    const loaded = await loadOperations(t.server);
    doc = loaded.doc;
    // A fulfillment provider's notification, an email provider's bounce webhook and Stripe's
    // events are authenticated by a signature over the body, not by a key (their own tests sign
    // them), and an email provider's and Stripe's bodies are free-form (the sender's fields): a
    // generated body never reaches any validation of ours (and a free-form body has no constraint
    // to break).
    operations = loaded.operations.filter(
      (op) =>
        op.body === 'json' &&
        op.schema &&
        !op.path.endsWith('/orders/fulfillment-notifications') &&
        !op.path.endsWith('/payments/stripe/events') &&
        !op.path.startsWith('/api/v2/email/providers/'),
    );
  });

  afterAll(async () => {
    console.log(`generated bodies: ${sent} requests over ${operations?.length ?? 0} operations; ${summary}`);
    await t?.close();
    media.remove();
  });

  async function send(f: ResourceFixtures, op: Operation, body: unknown): Promise<request.Response> {
    let r = request(t.server)[op.method](operationUrl(f, op));
    r = op.sessionOnly ? r.set('authorization', `Bearer ${f.sessionToken}`) : r.set('x-api-key', f.tenant.key);
    sent++;
    return r.set('content-type', 'application/json').send(JSON.stringify(body));
  }

  /** The schema of a property path of a body (`a.b`, array indexes skipped). */
  function schemaAt(op: Operation, path: string): (Schema & { 'x-sitebase-checked'?: string[] }) | undefined {
    let s: Schema | undefined = op.schema;
    for (const key of path.split('.')) {
      if (!s) return undefined;
      s = resolve(doc, s);
      if (/^\d+$/.test(key) && s.items) s = s.items;
      else s = s.properties?.[key];
    }
    return s && { ...s, ...resolve(doc, s) };
  }

  /** Whether the document says a property is checked beyond its schema (other fields, stored data). */
  const checkedBeyondSchema = (op: Operation, path: string) => {
    // A rule on the body as a whole (the stored resource must be ready for the action).
    if ((op.schema as { 'x-sitebase-checked'?: string[] })['x-sitebase-checked']) return true;
    const parts = path.split('.');
    // A rule on an array item or a nested member is marked on the member, or on its container.
    return parts.some((_, i) => schemaAt(op, parts.slice(0, i + 1).join('.'))?.['x-sitebase-checked'] !== undefined);
  };

  it('finds the operations that take a JSON body', () => {
    expect(operations.length).toBeGreaterThanOrEqual(60);
  });

  it(
    'one broken constraint: a 400 naming the property, and nothing changes',
    async () => {
      const f = await seedResources(t, await createTenant(t), 1);
      const cases: Array<{ op: Operation; broken: BrokenBody }> = [];
      for (const op of operations)
        for (const broken of fc.sample(brokenBody(doc, op.schema!), { seed: SEED, numRuns: BROKEN_PER_OPERATION }))
          cases.push({ op, broken });
      const before = { db: await snapshotDatabase(t.db), files: filesUnder(media.dir) };
      const failures: string[] = [];
      // Four at a time: each is refused alone, and nothing may change whatever the order.
      for (let i = 0; i < cases.length; i += 4)
        await Promise.all(
          cases.slice(i, i + 4).map(async ({ op, broken }) => {
            const res = await send(f, op, broken.body);
            try {
              expectProblem(res, 400, 'validation_failed');
              const paths = ((res.body.errors ?? []) as Array<{ path: string }>).map((e) => e.path);
              expect(paths.some((p) => p === broken.path || p.startsWith(`${broken.path}.`))).toBe(true);
            } catch {
              failures.push(
                `${op.label} broke ${broken.broke} at ${broken.path}: ${JSON.stringify(broken.body).slice(0, 200)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`,
              );
            }
          }),
        );
      expectOrFix(
        'Each body below breaks one constraint the document states, and the API did not answer 400 naming the ' +
          'property: add the validator the schema states to that DTO property (src/<module>/dto/), or, if the ' +
          'constraint is wrong, the rule that writes it (docs/openapi.md, "Rules from the validators")',
        () => expect(failures).toEqual([]),
      );
      expect({ db: await snapshotDatabase(t.db), files: filesUnder(media.dir) }).toEqual(before);
      expect(cases.length).toBeGreaterThan(operations.length * 3);
    },
    limitFor(OPERATIONS * BROKEN_PER_OPERATION, MS_PER_REQUEST),
  );

  it(
    'valid bodies: accepted, or refused only by a documented rule or a documented business status',
    async () => {
      fixtures = await seedResources(t, await createTenant(t));
      const failures: string[] = [];
      let accepted = 0;
      let byMark = 0;
      for (const op of operations) {
        const bodies = fc.sample(
          validValue(doc, op.schema!, 0, (name) => bodyIdFor(fixtures, name)),
          { seed: SEED, numRuns: VALID_PER_OPERATION },
        );
        // An operation's bodies side by side (a clash between them is a documented 409).
        await Promise.all(
          bodies.map(async (body) => {
            const res = await send(fixtures, op, body);
            const where = `${op.label} ${JSON.stringify(body).slice(0, 300)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`;
            if (res.status >= 200 && res.status < 300) {
              accepted++;
              return;
            }
            if (res.status >= 500 || !op.responses.includes(res.status)) {
              failures.push(`undocumented: ${where}`);
              return;
            }
            if (res.status === 413 || res.status === 415 || CREDENTIAL_CODES.includes(res.body?.code)) {
              failures.push(`refused a valid request: ${where}`);
              return;
            }
            // A signed token the schema cannot make (a mail link's): refused for its signature.
            if (res.status === 400 && res.body?.code === 'invalid_token') return;
            if (res.status === 400) {
              const paths = ((res.body.errors ?? []) as Array<{ path?: string }>).map((e) => e.path ?? '');
              const unexplained = paths.filter((p) => !checkedBeyondSchema(op, p));
              byMark++;
              if (paths.length === 0 || unexplained.length > 0)
                failures.push(
                  `400 on a valid body, by a rule the document does not mark (${unexplained.join(', ')}): ${where}. ` +
                    'If the service checks the field beyond its schema, declare it on the DTO property with ' +
                    '@Checked(kind, sentence) (src/common/input/checked.ts; docs/openapi.md, "Checked beyond the ' +
                    'schema"); if the schema should refuse the value, add the validator that says so',
                );
            }
          }),
        );
      }
      const total = operations.length * VALID_PER_OPERATION;
      summary = `${accepted} of ${total} valid bodies accepted, ${byMark} refused by a marked rule`;
      expectOrFix(
        'Each body below is valid by the document. "undocumented": the answer\'s status is not in the ' +
          "operation's responses: list it in its @Route's `problems`, or fix the 5xx in the handler; \"refused a " +
          'valid request": the route refused a body its schema allows for its credential or media type: fix the ' +
          "route's auth or body kind; a 400: see the line's own fix",
        () => expect(failures).toEqual([]),
      );
      // Valid bodies mostly do what they ask: a mark explains a refusal, it is not a way out.
      expect(accepted).toBeGreaterThan(total / 3);
      expect(accepted).toBeGreaterThan(byMark);
    },
    limitFor(OPERATIONS * VALID_PER_OPERATION, MS_PER_REQUEST),
  );
});
