import request from 'supertest';
import { sql } from '../../src/database/sql';
import { PaymentAccountEntity } from '../../src/payments/entities/payment-account.entity';
import { startApp, TestApp } from '../support/app';
import { eventsOf, lastEventId } from '../support/events';
import { expectProblem } from '../support/problem';
import { connectStripe, signedStripeEvent, stripeEventsUrl, stripeKeys } from '../support/stripe-connect';
import { agent, createTenant, Tenant, withTenants } from '../support/tenant';

const stripeUrl = (x: Tenant) => `/api/v2/sites/${x.siteName}/payments/stripe`;

const anEvent = (type: string, livemode = false, id = `evt_${Math.random().toString(36).slice(2)}`) => ({
  id,
  object: 'event',
  api_version: '2026-11-18.endive',
  created: Math.floor(Date.now() / 1000),
  data: { object: { id: 'cus_Unrelated1', object: 'customer' } },
  livemode,
  pending_webhooks: 1,
  request: { id: null, idempotency_key: null },
  type,
});

/**
 * docs/payments.md, "Connecting a site" and "Events": a site's Stripe keys are write-only and
 * sealed at rest with the environment's key; Stripe's events are verified with the site's own
 * webhook secret of the event's mode and applied once by id.
 */
describe('payments: a site’s Stripe connection and its events route', () => {
  const ctx = withTenants(2);
  let a: Tenant;
  let b: Tenant;
  beforeAll(() => ([a, b] = ctx.tenants));

  const rowOf = (x: Tenant) => ctx.t.db.getRepository(PaymentAccountEntity).findOneBy({ siteId: x.siteId });

  it('a site starts manual; connecting answers hints only, stores the keys sealed, and records the event', async () => {
    const before = await request(ctx.t.server).get(stripeUrl(a)).set('x-api-key', a.key);
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      processor: 'manual',
      mode: null,
      test: null,
      live: null,
      webhookPath: `/api/v2/sites/${a.siteName}/payments/stripe/events`,
      updatedAt: null,
    });
    const from = await lastEventId(ctx.t);
    const keys = stripeKeys('test');
    const res = await a.api.put(stripeUrl(a)).send({ test: keys });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      processor: 'stripe',
      mode: 'test',
      test: { keyHint: `rk_test_…${keys.secretKey.slice(-4)}`, webhookSecretSet: true },
      live: null,
      webhookPath: `/api/v2/sites/${a.siteName}/payments/stripe/events`,
      updatedAt: expect.any(String),
    });
    const text = JSON.stringify(res.body) + JSON.stringify((await a.api.get(stripeUrl(a))).body);
    expect(text).not.toContain(keys.secretKey.slice(8));
    expect(text).not.toContain(keys.webhookSecret.slice(6));
    // At rest: sealed, neither the key nor the secret in any column.
    const { rows } = await sql(
      ctx.t.db,
      `SELECT row_to_json(p)::text AS r FROM payment_accounts p WHERE site_id = $1`,
      [a.siteId],
    );
    expect(rows[0].r).not.toContain(keys.secretKey.slice(8));
    expect(rows[0].r).not.toContain(keys.webhookSecret.slice(6));
    expect((await rowOf(a))?.testSecretKey).toMatch(/^v1\./);
    expect(await eventsOf(ctx.t, a, from)).toEqual([
      {
        name: 'payment_account.updated',
        payload: { processor: 'stripe', mode: 'test', testConnected: true, liveConnected: false },
      },
    ]);
  });

  it('refuses keys of the wrong mode or shape, and charging in a mode without keys, changing nothing', async () => {
    const before = await rowOf(a);
    for (const body of [
      { test: stripeKeys('live') },
      { live: stripeKeys('test') },
      { test: { ...stripeKeys('test'), secretKey: 'pk_test_1234567890abcdef' } },
      { test: { ...stripeKeys('test'), webhookSecret: 'not-a-secret' } },
      { test: { secretKey: stripeKeys('test').secretKey } },
      { mode: 'sandbox' },
      { test: 'sk_test_1234567890abcdef' },
    ]) {
      expectProblem(await a.api.put(stripeUrl(a)).send(body), 400, 'validation_failed');
    }
    expectProblem(await a.api.put(stripeUrl(a)).send({ mode: 'live' }), 409, 'processor_not_connected');
    expectProblem(await a.api.put(stripeUrl(a)).send({ test: null }), 409, 'processor_not_connected');
    expect(await rowOf(a)).toEqual(before);
  });

  it('needs an admin key with its current secret: none, a narrow key and another account’s are refused', async () => {
    expectProblem(
      await request(ctx.t.server).put(stripeUrl(a)).send({ test: stripeKeys() }),
      401,
      'missing_credential',
    );
    const narrow = await a.api.post('/api/v2/api-keys').send({ name: 'orders only', permissions: ['orders:write'] });
    expect(narrow.status).toBe(201);
    expectProblem(await agent(ctx.t, narrow.body.key).get(stripeUrl(a)), 403, 'insufficient_permission');
    expectProblem(
      await agent(ctx.t, narrow.body.key).put(stripeUrl(a)).send({ test: stripeKeys() }),
      403,
      'insufficient_permission',
    );
    expectProblem(await b.api.put(stripeUrl(a)).send({ test: stripeKeys() }), 404, 'site_not_found');
    // A secret replaced by a roll keeps its other powers, but cannot point the site's money elsewhere.
    const made = await a.api.post('/api/v2/api-keys').send({ name: 'to roll' });
    const rolled = await agent(ctx.t, made.body.key).post(`/api/v2/api-keys/${made.body.id}/roll`);
    expect(rolled.status).toBe(200);
    const old = agent(ctx.t, made.body.key);
    expect((await old.get(stripeUrl(a))).status).toBe(200);
    expectProblem(await old.put(stripeUrl(a)).send({ test: stripeKeys() }), 403, 'secret_replaced');
    expectProblem(await old.delete(stripeUrl(a)), 403, 'secret_replaced');
    expect((await agent(ctx.t, rolled.body.key).get(stripeUrl(a))).body.processor).toBe('stripe');
  });

  describe('the events route', () => {
    let keys: Awaited<ReturnType<typeof connectStripe>>;
    beforeAll(async () => {
      keys = await connectStripe(b, { modes: ['test', 'live'] });
    });
    const post = (x: Tenant, s: { payload: string; header: string }) =>
      request(ctx.t.server)
        .post(stripeEventsUrl(x))
        .set('content-type', 'application/json')
        .set('stripe-signature', s.header)
        .send(s.payload);
    const countEvents = async (x: Tenant) =>
      Number(
        (await sql(ctx.t.db, `SELECT count(*) AS n FROM payment_events WHERE site_id = $1`, [x.siteId])).rows[0].n,
      );

    it('acknowledges a signed event of a type it does not act on, once: a redelivery is a replay', async () => {
      const event = anEvent('customer.updated');
      const signed = signedStripeEvent(event, keys.test!.webhookSecret);
      const first = await post(b, signed);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ id: event.id, type: 'customer.updated', outcome: 'ignored', replayed: false });
      const again = await post(b, signedStripeEvent(event, keys.test!.webhookSecret));
      expect(again.body).toEqual({ id: event.id, type: 'customer.updated', outcome: 'ignored', replayed: true });
      const { rows } = await sql(
        ctx.t.db,
        `SELECT mode, type, object_id, outcome FROM payment_events WHERE event_id = $1`,
        [event.id],
      );
      expect(rows).toEqual([
        { mode: 'test', type: 'customer.updated', object_id: 'cus_Unrelated1', outcome: 'ignored' },
      ]);
      // The live secret verifies live events.
      const live = anEvent('customer.updated', true);
      expect((await post(b, signedStripeEvent(live, keys.live!.webhookSecret))).status).toBe(200);
    });

    it('refuses forged, stale, unsigned, cross-mode and cross-site events: 401, nothing recorded', async () => {
      const before = await countEvents(b);
      const event = anEvent('payment_intent.succeeded');
      const good = signedStripeEvent(event, keys.test!.webhookSecret);
      const cases = [
        ['another secret', signedStripeEvent(event, stripeKeys().webhookSecret)],
        [
          'stale (10 minutes old)',
          signedStripeEvent(event, keys.test!.webhookSecret, Math.floor(Date.now() / 1000) - 600),
        ],
        [
          'body altered after signing',
          { payload: good.payload.replace('"livemode":false', '"livemode":true '), header: good.header },
        ],
        ['a live event signed with the test secret', signedStripeEvent(anEvent('x.y', true), keys.test!.webhookSecret)],
        [
          'a test event signed with the live secret',
          signedStripeEvent(anEvent('x.y', false), keys.live!.webhookSecret),
        ],
        ['no signature', { payload: good.payload, header: '' }],
        ['garbage', { payload: good.payload, header: 't=abc,v1=zz' }],
      ] as const;
      for (const [why, signed] of cases) {
        const res = await post(b, signed);
        expect({ why, status: res.status, code: res.body.code }).toEqual({
          why,
          status: 401,
          code: 'invalid_processor_signature',
        });
      }
      // Site a's event posted to site b, and b's to a site that is not connected.
      const c = await createTenant(ctx.t);
      expectProblem(await post(c, good), 401, 'invalid_processor_signature');
      expect(await countEvents(b)).toBe(before);
    });

    it('a sealed secret copied into another site’s row does not open there', async () => {
      const c = await createTenant(ctx.t);
      const cKeys = await connectStripe(c);
      await sql(
        ctx.t.db,
        `UPDATE payment_accounts SET test_webhook_secret = (SELECT test_webhook_secret FROM payment_accounts WHERE site_id = $1) WHERE site_id = $2`,
        [b.siteId, c.siteId],
      );
      const res = await post(c, signedStripeEvent(anEvent('customer.updated'), keys.test!.webhookSecret));
      expectProblem(res, 401, 'invalid_processor_signature');
      expectProblem(
        await post(c, signedStripeEvent(anEvent('customer.updated'), cKeys.test!.webhookSecret)),
        401,
        'invalid_processor_signature',
      );
    });
  });

  it('disconnecting deletes the keys: the site is manual again', async () => {
    const from = await lastEventId(ctx.t);
    const res = await a.api.delete(stripeUrl(a));
    expect(res.status).toBe(204);
    expect(await rowOf(a)).toBeNull();
    expect((await a.api.get(stripeUrl(a))).body.processor).toBe('manual');
    expect(await eventsOf(ctx.t, a, from)).toEqual([
      {
        name: 'payment_account.updated',
        payload: { processor: 'manual', mode: null, testConnected: false, liveConnected: false },
      },
    ]);
  });
});

describe('payments: without SECRETS_ENCRYPTION_KEY', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp({ env: { SECRETS_ENCRYPTION_KEY: '' } })));
  afterAll(() => t?.close());

  it('no site can be connected (409 secrets_key_missing), and nothing is stored', async () => {
    const x = await createTenant(t);
    expectProblem(await x.api.put(stripeUrl(x)).send({ test: stripeKeys() }), 409, 'secrets_key_missing');
    expect(await t.db.getRepository(PaymentAccountEntity).findOneBy({ siteId: x.siteId })).toBeNull();
  });
});
