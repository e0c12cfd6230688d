import { readFileSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import type { Test } from 'supertest';
import { eventCatalog } from '../../src/common/outbox/events';
import { OutboxEventEntity } from '../../src/common/outbox/outbox-event.entity';
import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { lastEventId } from '../support/events';
import { expectOrFix } from '../support/matchers';
import { collectionsUrl, contentUrl, makeContent } from '../support/factories';
import { makePng, tempMediaDir } from '../support/files';
import { ReceivedMail, startSmtpSink, SmtpSink } from '../support/smtp';
import { mailedMatch } from '../support/mail-copies';
import { agent, createTenant, Tenant, uniqueName } from '../support/tenant';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { FakeDns, fakeDns } from '../support/dns';
import { startStripeStandIn, StripeStandIn } from '../support/stripe/stand-in';

/**
 * docs/events.md is the catalogue integrators (webhooks) read. This file holds it to the code:
 * the documented names are the names of eventCatalog(), and every one of them is caused here by a
 * real API call whose recorded payload has exactly the documented fields, of the documented types.
 */

const DOC = join(__dirname, '../../docs/events.md');
const ISO_8601 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

// ---------------------------------------------------------------------------------------------
// The document
// ---------------------------------------------------------------------------------------------

interface DocumentedEvent {
  name: string;
  /** The sentence before "(module: …; scope: …)". */
  description: string;
  module: string;
  scope: 'site' | 'account';
  /** field -> documented type */
  fields: Map<string, string>;
  example: { type?: unknown; timestamp?: unknown; data?: unknown; [key: string]: unknown };
}

/**
 * Each `### <name>` section of docs/events.md: a one-line description ending in
 * `(module: <module>; scope: site|account)`, a `| field | type | description |` table and a
 * ```json example of the envelope. Anything else in a section is a parse error naming it.
 */
function parseDoc(text: string): { events: DocumentedEvent[]; errors: string[] } {
  const events: DocumentedEvent[] = [];
  const errors: string[] = [];
  const sections = text.split(/^### /m).slice(1);
  for (const section of sections) {
    const lines = section.split('\n');
    const name = lines[0].trim();
    const fail = (why: string) => errors.push(`docs/events.md, ### ${name}: ${why}`);
    const body = lines.slice(1);
    const line = body.find((l) => l.trim() !== '') ?? '';
    const about = /^(.+) \(module: ([a-z-]+); scope: (site|account)\)$/.exec(line.trim());
    if (!about) {
      fail('the first line must be "<description> (module: <module>; scope: site|account)"');
      continue;
    }
    const fields = new Map<string, string>();
    const tableAt = body.findIndex((l) => /^\| field \| type \| description \|\s*$/.test(l));
    if (tableAt < 0) {
      fail('no "| field | type | description |" table');
      continue;
    }
    for (const row of body.slice(tableAt + 2)) {
      if (!row.startsWith('|')) break;
      const cells = /^\| `([A-Za-z0-9_]+)` \| ([^|]+?) \| .+ \|\s*$/.exec(row);
      if (!cells) {
        fail(`a table row is not "| \`field\` | type | description |": ${row}`);
        continue;
      }
      if (fields.has(cells[1])) fail(`field ${cells[1]} is listed twice`);
      fields.set(cells[1], cells[2].trim());
    }
    const json = /^```json\n([\s\S]*?)\n```/m.exec(body.join('\n'));
    if (!json) {
      fail('no ```json example');
      continue;
    }
    let example: DocumentedEvent['example'];
    try {
      example = JSON.parse(json[1]) as DocumentedEvent['example'];
    } catch (err) {
      fail(`the example is not JSON: ${(err as Error).message}`);
      continue;
    }
    events.push({
      name,
      description: about[1],
      module: about[2],
      scope: about[3] as 'site' | 'account',
      fields,
      example,
    });
  }
  return { events, errors };
}

/**
 * Whether a JSON value is of a documented type: `integer`, `string`, `boolean`, `timestamp`
 * (an ISO 8601 string), `array of <type>s`, each optionally `… or null`. Undefined for a type
 * outside this vocabulary.
 */
function conforms(type: string, value: unknown): boolean | undefined {
  const nullable = type.endsWith(' or null');
  const base = nullable ? type.slice(0, -' or null'.length) : type;
  const array = /^array of (\w+)s$/.exec(base);
  if (array) {
    if (conforms(array[1], null) === undefined) return undefined;
    if (value === null) return nullable;
    return Array.isArray(value) && value.every((v) => conforms(array[1], v) === true);
  }
  const check: Record<string, (v: unknown) => boolean> = {
    integer: (v) => Number.isInteger(v),
    string: (v) => typeof v === 'string',
    boolean: (v) => typeof v === 'boolean',
    timestamp: (v) => typeof v === 'string' && ISO_8601.test(v),
  };
  if (!check[base]) return undefined;
  if (value === null) return nullable;
  return check[base](value);
}

const sorted = (keys: Iterable<string>) => [...keys].sort().join(', ');

// ---------------------------------------------------------------------------------------------
// The actions: real API calls, each declaring the events it records
// ---------------------------------------------------------------------------------------------

interface Ctx {
  t: TestApp;
  /** The tenant the actions work in. */
  a: Tenant;
  /** A tenant of its own for account deletion (read-only while it is scheduled). */
  b: Tenant;
  smtp: SmtpSink;
  /** While true the SMTP server refuses every message with 550 (for email.failed). */
  refuseMail: boolean;
  /** A webhook receiver: answers 200, or 500 to paths under /failing. */
  hooks: WebhookReceiver;
  /** Ids and names earlier steps made, for later ones. */
  made: Record<string, number | string>;
  /** The DNS the app verifies sender domains against. */
  dns: FakeDns;
  /** The port of the app's bounce listener (docs/deliverability.md). */
  bouncePort: number;
  /** Stripe, stood in for (test/support/stripe): the catalog sync's failure needs an answer. */
  stripe: StripeStandIn;
}

interface Step {
  does: string;
  /** Every event this step must record; each catalog event needs a step that names it. */
  emits: string[];
  run(ctx: Ctx): Promise<void>;
  /**
   * Events the step saw sent rather than recorded in the outbox (`webhook.test` goes straight
   * to its endpoint): checked like recorded ones.
   */
  observed?(ctx: Ctx): Promise<Array<{ name: string; siteId: number | null; payload: Record<string, unknown> }>>;
}

/** Sends the request; a status other than `status` throws with the body. */
async function call(req: Test, status: number): Promise<Record<string, unknown>> {
  const res = await req;
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Record<string, unknown>;
}

const id = (ctx: Ctx, key: string) => Number(ctx.made[key]);

/** The copy of the 'Quick' campaign the sink received for one@example.com. */
async function quickCopy(ctx: Ctx): Promise<ReceivedMail> {
  return eventually(async () =>
    ctx.smtp.received.find((m) => m.parsed.subject === 'Quick' && m.to[0] === 'one@example.com'),
  );
}

/** Sends a report of test/fixtures/bounces about `copy` to the app's bounce listener, as an MTA does. */
async function bounceReport(ctx: Ctx, name: string, copy: ReceivedMail): Promise<void> {
  const values: Record<string, string> = {
    BOUNCE_ADDRESS: copy.from,
    RETURN_PATH: copy.from,
    RECIPIENT: copy.to[0],
    MESSAGE_ID: (copy.parsed.messageId ?? '').replace(/^<|>$/g, ''),
    SITEBASE_ID: /^X-Sitebase-Message-Id: (\d+)/im.exec(copy.raw)?.[1] ?? '',
  };
  const raw = readFileSync(join(__dirname, '../fixtures/bounces', name), 'utf8')
    .replace(/\{\{([A-Z_]+)\}\}/g, (_m, key: string) => values[key] ?? '')
    .replace(/\r?\n/g, '\r\n');
  const client = createTransport({ host: '127.0.0.1', port: ctx.bouncePort, secure: false, ignoreTLS: true });
  await client.sendMail({ envelope: { from: '', to: [copy.from] }, raw }).finally(() => client.close());
}

/**
 * In module order (FEATURE_MODULES). A new module appends its steps here, and its events to
 * docs/events.md; a catalog event that no step names, or that its step does not record, fails.
 */
const STEPS: Step[] = [
  // account
  {
    does: 'create a site (POST /api/v2/sites)',
    emits: ['site.created'],
    run: async (ctx) => {
      ctx.made.siteName = uniqueName('events');
      await call(ctx.a.api.post('/api/v2/sites').send({ name: ctx.made.siteName, title: 'Events' }), 201);
    },
  },
  {
    does: 'change a site (PATCH /api/v2/sites/:siteName)',
    emits: ['site.updated'],
    run: async (ctx) => {
      await call(ctx.a.api.patch(`/api/v2/sites/${ctx.made.siteName}`).send({ title: 'Events, renamed' }), 200);
    },
  },
  {
    does: 'schedule the deletion of an account (DELETE /api/v2/account)',
    emits: ['account.deletion_scheduled'],
    run: async (ctx) => {
      await call(ctx.b.api.delete('/api/v2/account'), 202);
    },
  },
  {
    does: 'cancel it (DELETE /api/v2/account/deletion)',
    emits: ['account.deletion_canceled'],
    run: async (ctx) => {
      await call(ctx.b.api.delete('/api/v2/account/deletion'), 200);
    },
  },
  // api-keys
  {
    does: 'create an API key (POST /api/v2/api-keys)',
    emits: ['api_key.created'],
    run: async (ctx) => {
      const body = await call(ctx.a.api.post('/api/v2/api-keys').send({ name: 'CI deploys' }), 201);
      ctx.made.keyId = body.id as number;
    },
  },
  {
    does: 'roll it (POST /api/v2/api-keys/:id/roll)',
    emits: ['api_key.rolled'],
    run: async (ctx) => {
      await call(ctx.a.api.post(`/api/v2/api-keys/${id(ctx, 'keyId')}/roll`).send({ gracePeriodSeconds: 60 }), 200);
    },
  },
  {
    does: 'revoke it (DELETE /api/v2/api-keys/:id)',
    emits: ['api_key.revoked'],
    run: async (ctx) => {
      await call(ctx.a.api.delete(`/api/v2/api-keys/${id(ctx, 'keyId')}`), 204);
    },
  },
  // media
  {
    does: 'upload an image (POST /api/v2/sites/:siteName/media)',
    emits: ['media.created'],
    run: async (ctx) => {
      const png = await makePng(64, 48);
      const body = await call(
        ctx.a.api.post(`/api/v2/sites/${ctx.a.siteName}/media`).attach('file', png, 'harbour.png'),
        201,
      );
      ctx.made.mediaId = body.id as number;
    },
  },
  {
    does: 'change its text (PATCH /api/v2/sites/:siteName/media/:id)',
    emits: ['media.updated'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/media/${id(ctx, 'mediaId')}`;
      await call(ctx.a.api.patch(url).send({ title: 'The harbour', altText: 'Boats at dusk' }), 200);
    },
  },
  {
    does: 'delete it (DELETE /api/v2/sites/:siteName/media/:id)',
    emits: ['media.deleted'],
    run: async (ctx) => {
      await call(ctx.a.api.delete(`/api/v2/sites/${ctx.a.siteName}/media/${id(ctx, 'mediaId')}`), 204);
    },
  },
  // content
  {
    does: 'create a draft (POST …/content)',
    emits: ['content.created'],
    run: async (ctx) => {
      ctx.made.contentId = (await makeContent(ctx.a, { title: 'Hello world' })).id;
    },
  },
  {
    does: 'edit it (PATCH …/content/:id)',
    emits: ['content.updated'],
    run: async (ctx) => {
      await call(ctx.a.api.patch(contentUrl(ctx.a, `/${id(ctx, 'contentId')}`)).send({ title: 'Hello, world' }), 200);
    },
  },
  {
    does: 'publish it (POST …/content/:id/publish)',
    emits: ['content.published'],
    run: async (ctx) => {
      await call(ctx.a.api.post(contentUrl(ctx.a, `/${id(ctx, 'contentId')}/publish`)), 200);
    },
  },
  {
    does: 'unpublish it (POST …/content/:id/unpublish)',
    emits: ['content.unpublished'],
    run: async (ctx) => {
      await call(ctx.a.api.post(contentUrl(ctx.a, `/${id(ctx, 'contentId')}/unpublish`)), 200);
    },
  },
  {
    does: 'delete it (DELETE …/content/:id)',
    emits: ['content.deleted'],
    run: async (ctx) => {
      await call(ctx.a.api.delete(contentUrl(ctx.a, `/${id(ctx, 'contentId')}`)), 204);
    },
  },
  // collections
  {
    does: 'create a collection (POST …/collections)',
    emits: ['collection.created'],
    run: async (ctx) => {
      const body = await call(ctx.a.api.post(collectionsUrl(ctx.a)).send({ name: 'Summer reads' }), 201);
      ctx.made.collectionId = body.id as number;
    },
  },
  {
    does: 'change it (PATCH …/collections/:id)',
    emits: ['collection.updated'],
    run: async (ctx) => {
      const url = collectionsUrl(ctx.a, `/${id(ctx, 'collectionId')}`);
      await call(ctx.a.api.patch(url).send({ description: 'Our picks for the beach' }), 200);
    },
  },
  {
    does: 'add content to it (POST …/collections/:id/items)',
    emits: ['collection.item_added'],
    run: async (ctx) => {
      ctx.made.itemId = (await makeContent(ctx.a, { title: 'A summer read' })).id;
      const url = collectionsUrl(ctx.a, `/${id(ctx, 'collectionId')}/items`);
      await call(ctx.a.api.post(url).send({ contentId: id(ctx, 'itemId') }), 201);
    },
  },
  {
    does: 'remove it (DELETE …/collections/:id/items/:contentId)',
    emits: ['collection.item_removed'],
    run: async (ctx) => {
      const url = collectionsUrl(ctx.a, `/${id(ctx, 'collectionId')}/items/${id(ctx, 'itemId')}`);
      await call(ctx.a.api.delete(url), 204);
    },
  },
  {
    does: 'delete the collection (DELETE …/collections/:id)',
    emits: ['collection.deleted'],
    run: async (ctx) => {
      await call(ctx.a.api.delete(collectionsUrl(ctx.a, `/${id(ctx, 'collectionId')}`)), 204);
    },
  },
  // email
  {
    does: 'send a message the SMTP server accepts (POST …/email/send)',
    emits: ['email.sent'],
    run: async (ctx) => {
      ctx.refuseMail = false;
      const url = `/api/v2/sites/${ctx.a.siteName}/email/send`;
      await call(
        ctx.a.api
          .post(url)
          .send({ to: [{ email: 'ada@example.com' }], subject: 'Hi', text: 'Hello', tags: ['welcome'] }),
        202,
      );
    },
  },
  {
    does: 'send a message the SMTP server refuses with 550 (POST …/email/send)',
    emits: ['email.failed'],
    run: async (ctx) => {
      ctx.refuseMail = true;
      const url = `/api/v2/sites/${ctx.a.siteName}/email/send`;
      await call(ctx.a.api.post(url).send({ to: [{ email: 'gone@example.com' }], subject: 'Hi', text: 'Hello' }), 202);
    },
  },
  {
    does: 'suppress an address (POST …/email/suppressions)',
    emits: ['email.suppression.created'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/email/suppressions`;
      const body = await call(ctx.a.api.post(url).send({ email: 'quiet@example.com', note: 'Asked by phone' }), 201);
      ctx.made.suppressionId = body.id as number;
    },
  },
  {
    does: 'lift it (DELETE …/email/suppressions/:id?reason=…)',
    emits: ['email.suppression.lifted'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/email/suppressions/${id(ctx, 'suppressionId')}`;
      await call(ctx.a.api.delete(url).query({ reason: 'Entered by mistake' }), 204);
    },
  },
  // catalog
  {
    does: 'create a product category (POST …/categories)',
    emits: ['category.created'],
    run: async (ctx) => {
      const body = await call(ctx.a.api.post(`/api/v2/sites/${ctx.a.siteName}/categories`).send({ name: 'Mugs' }), 201);
      ctx.made.categoryId = Number(body.id);
    },
  },
  {
    does: 'update it (PATCH …/categories/{id})',
    emits: ['category.updated'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/categories/${id(ctx, 'categoryId')}`;
      await call(ctx.a.api.patch(url).send({ description: 'Stoneware' }), 200);
    },
  },
  {
    does: 'create a product in it (POST …/products)',
    emits: ['product.created'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/products`;
      const body = await call(
        ctx.a.api.post(url).send({ name: 'Mug', unitAmount: 1800, currency: 'EUR', categoryId: id(ctx, 'categoryId') }),
        201,
      );
      ctx.made.productId = Number(body.id);
    },
  },
  {
    does: 'update the product (PATCH …/products/{id})',
    emits: ['product.updated'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/products/${id(ctx, 'productId')}`;
      await call(ctx.a.api.patch(url).send({ unitAmount: 1900 }), 200);
    },
  },
  {
    does: 'delete the product (DELETE …/products/{id})',
    emits: ['product.deleted'],
    run: async (ctx) => {
      await call(ctx.a.api.delete(`/api/v2/sites/${ctx.a.siteName}/products/${id(ctx, 'productId')}`), 204);
    },
  },
  {
    does: 'delete the category (DELETE …/categories/{id})',
    emits: ['category.deleted'],
    run: async (ctx) => {
      await call(ctx.a.api.delete(`/api/v2/sites/${ctx.a.siteName}/categories/${id(ctx, 'categoryId')}`), 204);
    },
  },
  // users
  {
    does: 'sign in with a mailed one-time code (request-otp, verify-otp)',
    emits: ['user.created', 'user.signed_in'],
    run: async (ctx) => {
      ctx.refuseMail = false;
      const url = `/api/v2/sites/${ctx.a.siteName}/users`;
      const email = 'member@example.com';
      await call(ctx.a.api.post(`${url}/request-otp`).send({ email }), 202);
      const [mail] = await ctx.smtp.waitFor(1, 10000);
      const deadline = Date.now() + 10000;
      let code: string | undefined;
      while (!code && Date.now() < deadline) {
        const latest = ctx.smtp.received.filter((m) => m.to.includes(email)).pop();
        code = latest && /\b(\d{6})\b/.exec(latest.parsed.text ?? '')?.[1];
        if (!code) await new Promise((r) => setTimeout(r, 100));
      }
      if (!code) throw new Error(`no code mailed (${mail ? 'other mail' : 'no mail'})`);
      const body = await call(ctx.a.api.post(`${url}/verify-otp`).send({ email, code }), 200);
      ctx.made.userId = Number((body.user as { id: number }).id);
      ctx.made.userToken = String(body.accessToken);
    },
  },
  {
    does: 'an operator updates the user (PATCH …/users/{id})',
    emits: ['user.updated'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/users/${id(ctx, 'userId')}`;
      await call(ctx.a.api.patch(url).send({ name: 'Member' }), 200);
    },
  },
  {
    does: 'grant the user credits (POST …/users/{id}/credits/grant)',
    emits: ['credits.granted'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/users/${id(ctx, 'userId')}/credits/grant`;
      await call(ctx.a.api.post(url).send({ amount: 10, reason: 'Welcome', reference: 'promo' }), 201);
    },
  },
  {
    does: 'spend some (POST …/users/{id}/credits/spend)',
    emits: ['credits.spent'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/users/${id(ctx, 'userId')}/credits/spend`;
      await call(ctx.a.api.post(url).send({ amount: 4, reason: 'A report' }), 201);
    },
  },
  {
    does: 'the user deletes themselves (DELETE …/users/me, a grace period of 0)',
    emits: ['user.deleted'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/users/me`;
      await call(
        agent(ctx.t)
          .delete(url)
          .set('authorization', `Bearer ${String(ctx.made.userToken)}`),
        202,
      );
    },
  },
  // contacts
  {
    does: 'send a contact message without a key (POST …/contacts)',
    emits: ['contact.created'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/contacts`;
      await call(
        agent(ctx.t)
          .post(url)
          .send({ name: 'Grace', email: 'grace@example.com', message: 'Hello', source: 'footer', tags: ['sales'] }),
        201,
      );
      // The receipt names no id; an operator finds the message in the inbox.
      const list = await call(ctx.a.api.get(`${url}?limit=1`), 200);
      ctx.made.contactId = Number((list.data as Array<{ id: number }>)[0].id);
    },
  },
  {
    does: 'triage it (PATCH …/contacts/{id})',
    emits: ['contact.updated'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/contacts/${id(ctx, 'contactId')}`;
      await call(ctx.a.api.patch(url).send({ status: 'open', tags: ['sales', 'priority'] }), 200);
    },
  },
  // orders
  {
    does: 'place an order of a mug and a monthly plan (POST …/orders)',
    emits: ['order.created'],
    run: async (ctx) => {
      const products = `/api/v2/sites/${ctx.a.siteName}/products`;
      const mug = await call(
        ctx.a.api.post(products).send({ name: 'Mug', unitAmount: 1800, currency: 'EUR', quantityAvailable: 5 }),
        201,
      );
      const plan = await call(
        ctx.a.api.post(products).send({
          name: 'Monthly box',
          unitAmount: 2500,
          currency: 'EUR',
          recurring: { interval: 'month', intervalCount: 1 },
        }),
        201,
      );
      const order = await call(
        ctx.a.api.post(`/api/v2/sites/${ctx.a.siteName}/orders`).send({
          lines: [
            { productId: Number(mug.id), quantity: 2 },
            { productId: Number(plan.id), quantity: 1 },
          ],
          customer: { email: 'ada@example.com' },
        }),
        201,
      );
      ctx.made.orderId = Number(order.id);
      ctx.made.orderLineId = Number((order.lines as Array<{ id: number }>)[0].id);
    },
  },
  {
    does: 'ship part of it (PATCH …/orders/{id}/fulfillment)',
    emits: ['order.fulfillment_updated'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/orders/${id(ctx, 'orderId')}/fulfillment`;
      await call(
        ctx.a.api.patch(url).send({
          shipment: {
            carrier: 'DHL',
            trackingNumber: 'JD01',
            lines: [{ lineId: id(ctx, 'orderLineId'), quantity: 1 }],
          },
        }),
        200,
      );
    },
  },
  {
    does: 'record its payment (PATCH …/orders/{id}/payment): paid, with a recurring line',
    emits: ['order.paid', 'order.subscription_requested', 'user.subscription.created'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/orders/${id(ctx, 'orderId')}/payment`;
      await call(ctx.a.api.patch(url).send({ paymentStatus: 'paid', processorPaymentId: 'pi_1' }), 200);
      // The users module starts the customer's subscription from the outbox.
      const sub = await eventually(async () => {
        const [row] = await ctx.t.db.query<Array<{ id: string; user_id: string }>>(
          'SELECT id, user_id FROM user_subscriptions WHERE order_id = $1',
          [id(ctx, 'orderId')],
        );
        return row;
      });
      ctx.made.subscriptionId = Number(sub.id);
      ctx.made.subscriberId = Number(sub.user_id);
    },
  },
  {
    does: 'pause the subscription (POST …/users/{id}/subscriptions/{subId}/pause)',
    emits: ['user.subscription.updated'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/users/${id(ctx, 'subscriberId')}/subscriptions/${id(ctx, 'subscriptionId')}`;
      await call(ctx.a.api.post(`${url}/pause`).send({}), 200);
    },
  },
  {
    does: 'charge it (POST …/users/{id}/subscriptions/{subId}/charges)',
    emits: ['user.subscription.charged'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/users/${id(ctx, 'subscriberId')}/subscriptions/${id(ctx, 'subscriptionId')}`;
      const made = await call(ctx.a.api.post(`${url}/charges`).send({ amount: 500, description: 'Extra seats' }), 201);
      ctx.made.chargeId = Number((made.charge as { id: number }).id);
    },
  },
  {
    does: 'pay that charge out of band (POST …/subscriptions/{subId}/charges/{chargeId}/pay)',
    emits: ['user.subscription.charged'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/users/${id(ctx, 'subscriberId')}/subscriptions/${id(ctx, 'subscriptionId')}`;
      await call(ctx.a.api.post(`${url}/charges/${id(ctx, 'chargeId')}/pay`).send({ paidOutOfBand: true }), 200);
    },
  },
  {
    does: 'cancel it now (POST …/users/{id}/subscriptions/{subId}/cancel)',
    emits: ['user.subscription.canceled'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/users/${id(ctx, 'subscriberId')}/subscriptions/${id(ctx, 'subscriptionId')}`;
      await call(ctx.a.api.post(`${url}/cancel`).send({ reason: 'Moving' }), 200);
    },
  },
  {
    does: 'refund it (PATCH …/orders/{id}/payment)',
    emits: ['order.refunded'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/orders/${id(ctx, 'orderId')}/payment`;
      await call(ctx.a.api.patch(url).send({ paymentStatus: 'refunded' }), 200);
    },
  },
  {
    does: 'cancel it (PATCH …/orders/{id}/fulfillment with status canceled)',
    emits: ['order.fulfillment_updated', 'order.canceled'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/orders/${id(ctx, 'orderId')}/fulfillment`;
      await call(ctx.a.api.patch(url).send({ status: 'canceled' }), 200);
    },
  },
  // payments
  {
    does: 'connect a site to Stripe, then disconnect it (PUT and DELETE …/payments/stripe)',
    emits: ['payment_account.updated'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/payments/stripe`;
      const test = { secretKey: `rk_test_${'E'.repeat(24)}`, webhookSecret: `whsec_${'e'.repeat(32)}` };
      await call(ctx.a.api.put(url).send({ test }), 200);
      await call(ctx.a.api.delete(url), 204);
    },
  },
  {
    does: 'a connected site’s product with a Stripe id Stripe does not know: its sync fails (then disconnect)',
    emits: ['product.processor_sync_failed'],
    run: async (ctx) => {
      const stripe = `/api/v2/sites/${ctx.a.siteName}/payments/stripe`;
      const test = { secretKey: `rk_test_${'F'.repeat(24)}`, webhookSecret: `whsec_${'f'.repeat(32)}` };
      await call(ctx.a.api.put(stripe).send({ test }), 200);
      const url = `/api/v2/sites/${ctx.a.siteName}/products`;
      const product = await call(
        ctx.a.api
          .post(url)
          .send({ name: 'Linked plan', unitAmount: 900, currency: 'EUR', processorProductIdTest: 'prod_Unknown1' }),
        201,
      );
      await eventually(async () => {
        const res = await ctx.a.api.get(`${url}/${Number(product.id)}`);
        return (res.body as { processorSync?: { status: string } }).processorSync?.status === 'failed'
          ? true
          : undefined;
      }, 9000);
      await call(ctx.a.api.delete(stripe), 204);
    },
  },
  // webhooks
  {
    does: 'test an endpoint (POST …/webhooks/{id}/test): sent to it, not recorded',
    emits: ['webhook.test'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/webhooks`;
      const endpoint = await call(ctx.a.api.post(url).send({ url: ctx.hooks.url, eventTypes: ['site.created'] }), 201);
      await call(ctx.a.api.post(`${url}/${Number(endpoint.id)}/test`), 200);
    },
    observed: async (ctx) => {
      const [got] = await ctx.hooks.waitFor(1, (r) => (JSON.parse(r.body) as { type: string }).type === 'webhook.test');
      const envelope = JSON.parse(got.body) as { type: string; data: Record<string, unknown> };
      return [{ name: envelope.type, siteId: ctx.a.siteId, payload: envelope.data }];
    },
  },
  {
    does: 'an endpoint that fails for longer than WEBHOOK_DISABLE_AFTER_SECONDS is disabled',
    emits: ['webhook.endpoint_disabled'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/webhooks`;
      await call(
        ctx.a.api.post(url).send({ url: `${ctx.hooks.url}/failing`, eventTypes: ['collection.created'] }),
        201,
      );
      await call(ctx.a.api.post(collectionsUrl(ctx.a)).send({ name: 'Sets off the failing endpoint' }), 201);
    },
  },
  // newsletter
  {
    does: 'create a newsletter list (POST …/newsletter/lists)',
    emits: ['newsletter.list.created'],
    run: async (ctx) => {
      const list = await call(
        ctx.a.api.post(`/api/v2/sites/${ctx.a.siteName}/newsletter/lists`).send({ name: 'Weekly digest' }),
        201,
      );
      ctx.made.newsletterListId = Number(list.id);
    },
  },
  {
    does: 'rename it (PATCH …/newsletter/lists/{id})',
    emits: ['newsletter.list.updated'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/newsletter/lists/${id(ctx, 'newsletterListId')}`;
      await call(ctx.a.api.patch(url).send({ name: 'The weekly digest' }), 200);
    },
  },
  {
    does: 'subscribe to it without a key (POST …/newsletter/subscribe)',
    emits: ['newsletter.subscription.created'],
    run: async (ctx) => {
      await call(
        agent(ctx.t)
          .post(`/api/v2/sites/${ctx.a.siteName}/newsletter/subscribe`)
          .send({ email: 'reader@example.com', lists: [id(ctx, 'newsletterListId')] }),
        202,
      );
    },
  },
  {
    does: 'follow the mailed confirmation link (GET …/newsletter/confirm/{token})',
    emits: ['newsletter.subscription.confirmed'],
    run: async (ctx) => {
      // As the reader got it (the stored copy shows the link redacted).
      const token = await mailedMatch(ctx.smtp, 'reader@example.com', /newsletter\/confirm\/([\w.-]+)/);
      await call(agent(ctx.t).get(`/api/v2/sites/${ctx.a.siteName}/newsletter/confirm/${token}`), 200);
    },
  },
  {
    does: 'leave by the link of the welcome mail (POST …/newsletter/unsubscribe)',
    emits: ['newsletter.subscription.unsubscribed'],
    run: async (ctx) => {
      const token = await mailedMatch(ctx.smtp, 'reader@example.com', /newsletter\/preferences\/([\w.-]+)/);
      await call(
        agent(ctx.t)
          .post(`/api/v2/sites/${ctx.a.siteName}/newsletter/unsubscribe`)
          .send({ token, reason: 'Too many mails' }),
        200,
      );
    },
  },
  {
    does: 'delete the subscription (DELETE …/newsletter/subscriptions/{id})',
    emits: ['newsletter.subscription.deleted'],
    run: async (ctx) => {
      const base = `/api/v2/sites/${ctx.a.siteName}/newsletter/subscriptions`;
      const sub = await call(ctx.a.api.get(`${base}/by-email?email=reader@example.com`), 200);
      await call(ctx.a.api.delete(`${base}/${Number(sub.id)}`), 204);
    },
  },
  {
    does: 'delete the list (DELETE …/newsletter/lists/{id})',
    emits: ['newsletter.list.deleted'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/newsletter/lists/${id(ctx, 'newsletterListId')}`;
      await call(ctx.a.api.delete(url), 204);
    },
  },
  {
    does: 'create a newsletter series on a new list (POST …/newsletter/series)',
    emits: ['newsletter.series.created'],
    run: async (ctx) => {
      const base = `/api/v2/sites/${ctx.a.siteName}/newsletter`;
      const list = await call(ctx.a.api.post(`${base}/lists`).send({ name: 'Onboarding' }), 201);
      const series = await call(
        ctx.a.api.post(`${base}/series`).send({
          name: 'Onboarding',
          listIds: [Number(list.id)],
          steps: [{ delaySeconds: 0, subject: 'Welcome', html: '<p>Hello</p>' }],
        }),
        201,
      );
      ctx.made.newsletterSeriesId = Number(series.id);
    },
  },
  {
    does: 'pause it (PATCH …/newsletter/series/{id})',
    emits: ['newsletter.series.updated'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/newsletter/series/${id(ctx, 'newsletterSeriesId')}`;
      await call(ctx.a.api.patch(url).send({ status: 'paused' }), 200);
    },
  },
  {
    does: 'schedule a campaign to a list at one mail a minute (PATCH …/newsletter/campaigns/{id}, status scheduled)',
    emits: ['newsletter.campaign.scheduled'],
    run: async (ctx) => {
      const base = `/api/v2/sites/${ctx.a.siteName}/newsletter`;
      await call(
        ctx.a.api.patch(`/api/v2/sites/${ctx.a.siteName}`).send({ settings: { newsletter: { sendRatePerMinute: 1 } } }),
        200,
      );
      const list = await call(
        ctx.a.api.post(`${base}/lists`).send({ name: 'Campaign list', doubleOptIn: false, visibility: 'private' }),
        201,
      );
      ctx.made.campaignListId = Number(list.id);
      await call(
        ctx.a.api
          .post(`${base}/subscriptions/sync`)
          .send({ listId: Number(list.id), emails: ['one@example.com', 'two@example.com'], consent: true }),
        200,
      );
      const campaign = await call(
        ctx.a.api.post(`${base}/campaigns`).send({
          name: 'Slow campaign',
          subject: 'Slow',
          contentHtml: '<p>Hello</p>',
          listIds: [Number(list.id)],
        }),
        201,
      );
      ctx.made.campaignId = Number(campaign.id);
      await call(ctx.a.api.patch(`${base}/campaigns/${Number(campaign.id)}`).send({ status: 'scheduled' }), 200);
    },
  },
  {
    does: 'pause its send after the first mail (PATCH …/newsletter/campaigns/{id}, status paused)',
    emits: ['newsletter.campaign.paused'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/newsletter/campaigns/${id(ctx, 'campaignId')}`;
      const deadline = Date.now() + 10000;
      while ((await call(ctx.a.api.get(url), 200)).status !== 'sending' && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      await call(ctx.a.api.patch(url).send({ status: 'paused' }), 200);
    },
  },
  {
    does: 'delete it (DELETE …/newsletter/series/{id})',
    emits: ['newsletter.series.deleted'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/newsletter/series/${id(ctx, 'newsletterSeriesId')}`;
      await call(ctx.a.api.delete(url), 204);
    },
  },
  {
    does: 'cancel it (PATCH …/newsletter/campaigns/{id}, status canceled)',
    emits: ['newsletter.campaign.canceled'],
    run: async (ctx) => {
      const url = `/api/v2/sites/${ctx.a.siteName}/newsletter/campaigns/${id(ctx, 'campaignId')}`;
      await call(ctx.a.api.patch(url).send({ status: 'canceled' }), 200);
    },
  },
  {
    does: 'send a campaign to the end at the default rate (its job records the end)',
    emits: ['newsletter.campaign.scheduled', 'newsletter.campaign.sent'],
    run: async (ctx) => {
      const base = `/api/v2/sites/${ctx.a.siteName}/newsletter`;
      await call(
        ctx.a.api
          .patch(`/api/v2/sites/${ctx.a.siteName}`)
          .send({ settings: { newsletter: { sendRatePerMinute: null } } }),
        200,
      );
      const campaign = await call(
        ctx.a.api.post(`${base}/campaigns`).send({
          name: 'Quick campaign',
          subject: 'Quick',
          contentHtml: '<p>Hello</p>',
          listIds: [id(ctx, 'campaignListId')],
        }),
        201,
      );
      await call(ctx.a.api.patch(`${base}/campaigns/${Number(campaign.id)}`).send({ status: 'scheduled' }), 200);
    },
  },
  {
    does: 'a hard DSN comes back to a copy of it over SMTP (the bounce listener)',
    emits: ['newsletter.subscription.bounced'],
    run: async (ctx) => {
      await bounceReport(ctx, 'postfix-hard.eml', await quickCopy(ctx));
    },
  },
  {
    does: 'an ARF complaint comes back to the same copy',
    emits: ['newsletter.subscription.complained', 'newsletter.subscription.unsubscribed'],
    run: async (ctx) => {
      await bounceReport(ctx, 'arf-abuse.eml', await quickCopy(ctx));
    },
  },
  // senders
  {
    does: 'add a sender domain (POST /api/v2/sender-domains)',
    emits: ['sender_domain.created'],
    run: async (ctx) => {
      const body = await call(ctx.a.api.post('/api/v2/sender-domains').send({ domain: 'news.harbour.example' }), 201);
      ctx.made.senderDomainId = body.id as number;
      const records = body.records as Record<'verification' | 'dkim', { name: string; value: string }>;
      for (const r of Object.values(records)) ctx.dns.publish(r.name, r.value);
    },
  },
  {
    does: 'verify it once its records are in DNS (POST /api/v2/sender-domains/:id/verify)',
    emits: ['sender_domain.verified'],
    run: async (ctx) => {
      await call(ctx.a.api.post(`/api/v2/sender-domains/${id(ctx, 'senderDomainId')}/verify`), 200);
    },
  },
  {
    does: 'remove it (DELETE /api/v2/sender-domains/:id)',
    emits: ['sender_domain.deleted'],
    run: async (ctx) => {
      await call(ctx.a.api.delete(`/api/v2/sender-domains/${id(ctx, 'senderDomainId')}`), 204);
    },
  },
  // new:module: steps above (one per event a module declares, caused through the API)
];

interface Recorded {
  step: string;
  name: string;
  siteId: number | null;
  payload: Record<string, unknown>;
}

/** How long a step may take to record its events (email ones are recorded by a job). */
const STEP_WAIT_MS = 10000;

/** What a section of docs/events.md holds: the fix of every mismatch between it and the code. */
const SECTION_FORMAT =
  'A section of docs/events.md is a `### <name>` heading, one line "<description from the events file> ' +
  '(module: <module>; scope: site|account)", a `| field | type | description |` table of the payload ' +
  '(types: integer, string, boolean, timestamp, array of <type>s, each may end "or null") and a ```json ' +
  'example of the envelope {type, timestamp, data}: format in docs/modules.md, "Events"';

describe('docs/events.md against the event catalog and what the app records', () => {
  const media = tempMediaDir('events');
  const ctx = { made: {}, refuseMail: false, dns: fakeDns() } as Ctx;
  const recorded: Recorded[] = [];
  /** Steps that failed (their call, or the events they name never came). */
  const stepErrors: string[] = [];
  const doc = parseDoc(readFileSync(DOC, 'utf8'));

  beforeAll(async () => {
    // A database of its own: the SMTP server would otherwise receive mail other files left queued.
    ctx.smtp = await startSmtpSink({ refuse: () => (ctx.refuseMail ? 550 : null) });
    ctx.hooks = await startWebhookReceiver();
    ctx.stripe = await startStripeStandIn();
    ctx.bouncePort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    ctx.hooks.answer((_n, r) => (r.path.includes('/failing') ? { status: 500 } : { status: 200 }));
    ctx.t = await startApp({
      databaseUrl: await createFreshDatabase('events'),
      env: {
        SMTP_URL: ctx.smtp.url,
        MEDIA_LOCAL_DIR: media.dir,
        MEDIA_THUMBNAIL_WIDTHS: '16',
        WEBHOOKS_ALLOW_PRIVATE: 'true',
        WEBHOOKS_ALLOW_HTTP: 'true',
        WEBHOOK_RETRY_SCHEDULE: '1,1,1',
        WEBHOOK_DISABLE_AFTER_SECONDS: '1',
        USER_DELETION_GRACE_SECONDS: '0',
        BOUNCE_DOMAIN: 'bounces.events.test',
        BOUNCE_SMTP_PORT: String(ctx.bouncePort),
        BOUNCE_SMTP_HOST: '127.0.0.1',
        STRIPE_API_BASE: ctx.stripe.url,
        STRIPE_MAX_NETWORK_RETRIES: '1',
        STRIPE_TIMEOUT_MS: '2000',
      },
      extraModules: [ctx.dns.module],
    });
    [ctx.a, ctx.b] = await Promise.all([createTenant(ctx.t), createTenant(ctx.t)]);
    const outbox = ctx.t.db.getRepository(OutboxEventEntity);
    for (const step of STEPS) {
      const after = await lastEventId(ctx.t);
      const rows = async () =>
        outbox
          .createQueryBuilder('e')
          .where('e.id > :after AND e.account_id IN (:...accounts)', {
            after,
            accounts: [ctx.a.accountId, ctx.b.accountId],
          })
          .orderBy('e.id')
          .getMany();
      try {
        await step.run(ctx);
        for (const r of (await step.observed?.(ctx)) ?? []) recorded.push({ step: step.does, ...r });
      } catch (err) {
        stepErrors.push(`step "${step.does}" (emits ${step.emits.join(', ')}) failed: ${(err as Error).message}`);
        continue;
      }
      const deadline = Date.now() + STEP_WAIT_MS;
      const seen = recorded.filter((r) => r.step === step.does).map((r) => ({ name: r.name }));
      let found = await rows();
      const has = (name: string) => found.some((r) => r.name === name) || seen.some((r) => r.name === name);
      while (step.emits.some((name) => !has(name)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        found = await rows();
      }
      for (const r of found) recorded.push({ step: step.does, name: r.name, siteId: r.siteId, payload: r.payload });
      const missing = step.emits.filter((name) => !has(name));
      if (missing.length)
        stepErrors.push(
          `step "${step.does}" recorded ${sorted(found.map((r) => r.name)) || 'nothing'}, not ${missing.join(', ')}`,
        );
    }
  }, 60000);

  afterAll(async () => {
    await ctx.t?.close();
    await ctx.smtp?.close();
    await ctx.hooks?.close();
    await ctx.stripe?.close();
    media.remove();
  });

  it('every request sent to the Stripe stand-in passed Stripe’s published spec', () => {
    expect(ctx.stripe.validatedCount).toBeGreaterThan(0);
    expect(ctx.stripe.invalid()).toEqual([]);
  });

  it('docs/events.md parses: every ### section has a description line, a field table and a JSON example', () => {
    expectOrFix(`Fix the sections named below. ${SECTION_FORMAT}`, () => expect(doc.errors).toEqual([]));
  });

  it('documents exactly the events of eventCatalog(), each under its module and with its description', () => {
    const catalog = eventCatalog();
    const documented = new Set(doc.events.map((e) => e.name));
    const problems = [
      ...[...catalog.keys()]
        .filter((n) => !documented.has(n))
        .map(
          (n) =>
            `${n}: in the catalog, not in docs/events.md: add a \`### ${n}\` section to docs/events.md under ` +
            "its module's heading (format in docs/modules.md, Events: its description, the fields table and an " +
            'example), as the others are',
        ),
      ...[...documented]
        .filter((n) => !catalog.has(n))
        .map(
          (n) =>
            `${n}: in docs/events.md, not in the catalog: declare it in its module's <module>.events.ts ` +
            '(defineEvents), or remove its section',
        ),
      ...[...documented]
        .filter((n) => doc.events.filter((e) => e.name === n).length > 1)
        .map((n) => `${n}: documented twice: keep one \`### ${n}\` section of docs/events.md`),
    ];
    for (const e of doc.events) {
      const declared = catalog.get(e.name);
      if (!declared) continue;
      if (e.module !== declared.module)
        problems.push(
          `${e.name}: documented in module ${e.module}, declared by ${declared.module}: move its section of ` +
            `docs/events.md under the heading of module \`${declared.module}\``,
        );
      if (!e.description.startsWith(declared.description))
        problems.push(
          `${e.name}: the description does not start with the declared one, "${declared.description}": ` +
            'begin its docs/events.md section with that sentence (or change both together)',
        );
    }
    // One module's events together, as the catalogue reads by module.
    const modules = doc.events.map((e) => e.module).filter((m, i, all) => i === 0 || all[i - 1] !== m);
    for (const m of new Set(modules))
      if (modules.filter((x) => x === m).length > 1)
        problems.push(
          `module ${m}: its events are not together: move its sections of docs/events.md under one heading`,
        );
    expect(problems).toEqual([]);
  });

  it('every event of the catalog is recorded by a real API call', () => {
    const problems = [...stepErrors];
    for (const step of STEPS)
      for (const name of step.emits.filter((n) => !eventCatalog().has(n)))
        problems.push(
          `${name}: step "${step.does}" names it, but no module declares it: declare it in its module's ` +
            '<module>.events.ts (defineEvents), or fix the name in STEPS',
        );
    for (const name of eventCatalog().keys()) {
      const steps = STEPS.filter((s) => s.emits.includes(name));
      if (steps.length === 0)
        problems.push(
          `${name}: no step of STEPS emits it: add a step to STEPS in this file ` +
            "(test/foundation/events-catalog.e2e-spec.ts, after its module's steps) that causes it through the " +
            `API, with emits: ['${name}']`,
        );
      else if (!recorded.some((r) => r.name === name))
        problems.push(
          `${name}: never recorded (by ${steps.map((s) => `"${s.does}"`).join(', ')}): the service must ` +
            'recordEvent() it in the transaction of that write, or the step must make the call that causes it',
        );
    }
    expectOrFix(
      'Each line names its fix. A step that failed is an API call of STEPS in this file that did not answer ' +
        'as it expects, or whose events never reached the outbox: fix the call (its body, its status), or ' +
        "record the event in the service's transaction (recordEvent with its module's <module>.events.ts " +
        'declaration)',
      () => expect(problems).toEqual([]),
    );
  });

  it('each example is an envelope of its event: type, an ISO timestamp, data with the documented fields', () => {
    const problems: string[] = [];
    for (const e of doc.events) {
      const { type, timestamp, data } = e.example;
      if (sorted(Object.keys(e.example)) !== 'data, timestamp, type')
        problems.push(`${e.name}: the example's keys are ${sorted(Object.keys(e.example))}, not data, timestamp, type`);
      if (type !== e.name) problems.push(`${e.name}: the example's type is ${String(type)}`);
      if (typeof timestamp !== 'string' || !ISO_8601.test(timestamp))
        problems.push(`${e.name}: the example's timestamp is not ISO 8601 (${String(timestamp)})`);
      if (typeof data !== 'object' || data === null || Array.isArray(data)) {
        problems.push(`${e.name}: the example's data is not an object`);
        continue;
      }
      const values = data as Record<string, unknown>;
      if (sorted(Object.keys(values)) !== sorted(e.fields.keys()))
        problems.push(
          `${e.name}: the example has ${sorted(Object.keys(values))}, the table ${sorted(e.fields.keys())}`,
        );
      for (const [field, fieldType] of e.fields) {
        const ok = conforms(fieldType, values[field]);
        if (ok === undefined) problems.push(`${e.name}: ${field} has an unknown type "${fieldType}"`);
        else if (field in values && !ok)
          problems.push(`${e.name}: the example's ${field} (${JSON.stringify(values[field])}) is not ${fieldType}`);
      }
    }
    expectOrFix(`Fix the example of each section named below. ${SECTION_FORMAT}`, () => expect(problems).toEqual([]));
  });

  it('every recorded payload has exactly the documented fields, of the documented types, in the documented scope', () => {
    const problems: string[] = [];
    for (const e of doc.events) {
      const rows = recorded.filter((r) => r.name === e.name);
      for (const row of rows) {
        const keys = Object.keys(row.payload);
        if (sorted(keys) !== sorted(e.fields.keys()))
          problems.push(`${e.name}: recorded with ${sorted(keys)}, documented with ${sorted(e.fields.keys())}`);
        for (const [field, fieldType] of e.fields) {
          if (field in row.payload && conforms(fieldType, row.payload[field]) === false)
            problems.push(
              `${e.name}: ${field} was recorded as ${JSON.stringify(row.payload[field])}, not ${fieldType}`,
            );
        }
        const scope = row.siteId === null ? 'account' : 'site';
        if (scope !== e.scope)
          problems.push(`${e.name}: documented with scope ${e.scope}, recorded with scope ${scope}`);
      }
    }
    expectOrFix(
      "docs/events.md must say what the app records: make the section's table list exactly the fields of the " +
        "payload the service passes to recordEvent (typed in its module's <module>.events.ts), with their types, " +
        'and its scope `account` for an event recorded without a site, `site` otherwise. ' +
        SECTION_FORMAT,
      () => expect([...new Set(problems)]).toEqual([]),
    );
  });
});
