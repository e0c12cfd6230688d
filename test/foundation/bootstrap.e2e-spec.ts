import { createHash } from 'node:crypto';
import request from 'supertest';
import { BootstrapConfig } from '../../src/bootstrap/bootstrap.config';
import { BootstrapService } from '../../src/bootstrap/bootstrap.service';
import { startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { ISO, NULL_OR_ISO } from '../support/matchers';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

interface Counts {
  accounts: number;
  sites: number;
  api_keys: number;
}

async function counts(t: TestApp): Promise<Counts> {
  const [row] = await t.db.query(
    'SELECT (SELECT count(*) FROM accounts)::int AS accounts, (SELECT count(*) FROM sites)::int AS sites, (SELECT count(*) FROM api_keys)::int AS api_keys',
  );
  return row;
}

/**
 * The demo data of a fresh start (docs/foundation.md, "Bootstrap"), each the first of its kind
 * (id 1): what the OpenAPI examples name.
 */
async function expectDemoData(t: TestApp, key: string): Promise<void> {
  const site = '/api/v2/sites/demo';
  const get = (path: string) => request(t.server).get(`${site}${path}`).set('x-api-key', key);
  // Anyone reads the published page and product.
  const page = await request(t.server).get(`${site}/content/welcome`);
  expect(page.status).toBe(200);
  expect(page.body).toMatchObject({ id: 1, type: 'page', status: 'published', slug: 'welcome' });
  const product = await request(t.server).get(`${site}/products/1`);
  expect(product.status).toBe(200);
  expect(product.body).toMatchObject({
    status: 'published',
    categoryId: 1,
    recurring: { interval: 'month', intervalCount: 1 },
    variants: [expect.objectContaining({ id: 1 })],
    attachmentIds: [1],
  });
  // A picture, with its thumbnails: what the examples attach (attachmentIds [1]).
  expect((await get('/media/1')).body).toMatchObject({ id: 1, title: 'Membership card', contentType: 'image/png' });
  expect((await get('/categories/1')).status).toBe(200);
  const list = await get('/newsletter/lists/1');
  expect(list.body).toMatchObject({ id: 1, visibility: 'public' });
  expect((await get('/newsletter/subscriptions?limit=5')).body.data).toEqual([
    expect.objectContaining({ id: 1, email: 'ada@example.com' }),
  ]);
  expect((await get('/email/templates/1')).body).toMatchObject({ type: 'newsletter.campaign', status: 'draft' });
  expect((await get('/orders/1')).body).toMatchObject({ paymentStatus: 'paid' });
  // The paid order of the monthly plan made the site user and their subscription.
  expect((await get('/users/1')).body).toMatchObject({ email: 'ada@example.com' });
  expect((await get('/users/1/subscriptions')).body.data).toEqual([
    expect.objectContaining({ id: 1, productId: 1, status: 'active', interval: 'month' }),
  ]);
  expect((await get('/webhooks/1')).body).toMatchObject({ status: 'disabled', url: 'https://93.184.215.14/sitebase' });
}

describe('first start on an empty database (BOOTSTRAP_ENABLED=true)', () => {
  const started: TestApp[] = [];
  const start = async (databaseUrl: string, env: Record<string, string> = {}, logged?: Record<string, unknown>[]) => {
    const t = await startApp({
      databaseUrl,
      env: { BOOTSTRAP_ENABLED: 'true', JOBS_ENABLED: 'false', ...env },
      ...(logged ? { logDestination: { write: (line: string) => logged.push(JSON.parse(line)) } } : {}),
    });
    started.push(t);
    return t;
  };
  afterEach(async () => {
    jest.restoreAllMocks();
    await Promise.all(started.splice(0).map((t) => t.close()));
  });

  it('with BOOTSTRAP_API_KEY: that key, the site demo and one account; later starts create nothing', async () => {
    const url = await createFreshDatabase('boota');
    const key = `sb_live_${'Ab3'.repeat(13)}Z`;
    expect(key).toMatch(/^sb_live_[A-Za-z0-9]{40}$/);
    // Two instances starting together on the empty database still make one account.
    const [one, two] = await Promise.all([
      start(url, { BOOTSTRAP_API_KEY: key }),
      start(url, { BOOTSTRAP_API_KEY: key }),
    ]);
    expect(await counts(one)).toEqual({ accounts: 1, sites: 1, api_keys: 1 });

    const keys = await request(two.server).get('/api/v2/api-keys').set('x-api-key', key);
    expect(keys.status).toBe(200);
    expect(keys.body).toEqual({
      data: [
        {
          id: expect.any(Number),
          name: 'Bootstrap key',
          prefix: key.slice(0, 12),
          last4: key.slice(-4),
          siteIds: null,
          permissions: null,
          kind: 'secret',
          allowedOrigins: null,
          rateLimitPerMinute: null,
          createdAt: ISO,
          lastUsedAt: NULL_OR_ISO,
          expiresAt: null,
          previousSecret: null,
        },
      ],
      pagination: { limit: 20, nextCursor: null },
    });
    const [account] = await one.db.query('SELECT id, name, status FROM accounts');
    expect(account).toEqual({ id: expect.any(String), name: 'Default account', status: 'active' });
    const site = await request(one.server).get('/api/v2/sites/demo').set('authorization', `Bearer ${key}`);
    expect(site.status).toBe(200);
    expect(site.body).toEqual({
      id: expect.any(Number),
      name: 'demo',
      title: 'Demo site',
      accountId: Number(account.id),
      settings: {
        publicBaseUrl: null,
        email: { fromName: null, fromAddress: null, replyTo: null, softBounceLimit: null, softBounceWindowDays: null },
        contacts: { notifyEmails: [] },
        orders: {
          taxRates: {},
          defaultTaxRate: null,
          sessionHoldMinutes: 30,
          keyHoldMinutes: 1440,
          maxPendingPerUser: 5,
          maxHeldPerProduct: 10,
          maxHeldPerUser: 50,
          holdCooldownMinutes: 10,
        },
        newsletter: { confirmRedirectUrl: null, suppressOnDelete: false, sendRatePerMinute: null },
        subscriptions: { dunningDays: 14 },
      },
      createdAt: ISO,
      updatedAt: ISO,
    });
    expect(await one.db.query('SELECT key_hash, account_id FROM api_keys')).toEqual([
      { key_hash: sha256(key), account_id: account.id },
    ]);
    const events = await one.db.query('SELECT name, account_id, site_id FROM outbox_events ORDER BY id');
    expect(events.slice(0, 2)).toEqual([
      { name: 'site.created', account_id: account.id, site_id: String(site.body.id) },
      { name: 'api_key.created', account_id: account.id, site_id: null },
    ]);
    // Then the demo's data, made through the services (their events), all in the site demo.
    expect(events.slice(2).map((e: { name: string }) => e.name)).toEqual(
      expect.arrayContaining(['content.published', 'product.created', 'order.paid', 'user.created']),
    );
    expect(events.slice(2).every((e: { site_id: string }) => e.site_id === String(site.body.id))).toBe(true);
    await expectDemoData(one, key);
    const demoEvents = events.length;

    await Promise.all(started.splice(0).map((t) => t.close()));
    // A restart that also checks migrations (all applied already, under their lock), with
    // another key: ignored, and said so once, with the command that makes a key (issue 47, row 2).
    const logged: Record<string, unknown>[] = [];
    const again = await start(
      url,
      { BOOTSTRAP_API_KEY: `sb_live_${'Q'.repeat(40)}`, MIGRATIONS_RUN: 'true', LOG_LEVEL: 'warn' },
      logged,
    );
    expect(logged.filter((l) => String(l.msg).includes('BOOTSTRAP_API_KEY'))).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'BOOTSTRAP_API_KEY was ignored: the database already has an account, and the key is made only by the first start on an empty database. Make a key with: npm run key -- create --site demo',
      }),
    ]);
    // The key the first start made, set again on every start: it works, nothing to say.
    const said = logged.length;
    again.app.get(BootstrapConfig).BOOTSTRAP_API_KEY = key;
    expect(await again.app.get(BootstrapService).run()).toBeNull();
    expect(logged.length).toBe(said);
    expect(await counts(again)).toEqual({ accounts: 1, sites: 1, api_keys: 1 });
    // Nothing seeded again.
    expect(await again.db.query('SELECT count(*)::int AS n FROM outbox_events')).toEqual([{ n: demoEvents }]);
    expect((await request(again.server).get('/api/v2/api-keys').set('x-api-key', key)).status).toBe(200);
    expect(
      (
        await request(again.server)
          .get('/api/v2/api-keys')
          .set('x-api-key', `sb_live_${'Q'.repeat(40)}`)
      ).status,
    ).toBe(401);
  });

  it('without BOOTSTRAP_API_KEY: a new key is printed once, and it works', async () => {
    const url = await createFreshDatabase('bootb');
    const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const t = await start(url);
    const printed = write.mock.calls.map(([chunk]) => String(chunk)).join('');
    write.mockRestore();

    const found: string[] = printed.match(/sb_live_[A-Za-z0-9]+/g) ?? [];
    expect(found).toHaveLength(1);
    const [key] = found;
    expect(key).toMatch(/^sb_live_[A-Za-z0-9]{40}$/);
    // Away from a terminal the logs are JSON lines, and so is this one: the key in `apiKey`.
    expect(
      printed
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as unknown),
    ).toContainEqual(
      expect.objectContaining({
        level: 30,
        msg: 'Sitebase is ready. Site "demo" was created with this API key (shown once, keep it)',
        site: 'demo',
        apiKey: key,
      }),
    );

    const res = await request(t.server).get('/api/v2/api-keys').set('x-api-key', key);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      expect.objectContaining({ name: 'Bootstrap key', prefix: key.slice(0, 12), last4: key.slice(-4) }),
    ]);
    expect(await counts(t)).toEqual({ accounts: 1, sites: 1, api_keys: 1 });
    expect(await t.db.query('SELECT key_hash FROM api_keys')).toEqual([{ key_hash: sha256(key) }]);

    // A restart prints nothing and adds nothing.
    await Promise.all(started.splice(0).map((x) => x.close()));
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const again = await start(url);
    const second = spy.mock.calls.map(([chunk]) => String(chunk)).join('');
    spy.mockRestore();
    expect(second).not.toMatch(/sb_live_/);
    expect(await counts(again)).toEqual({ accounts: 1, sites: 1, api_keys: 1 });
  });

  it('the demo site is manual, unless STRIPE_TEST_SECRET_KEY connects it in test mode (sealed, never shown)', async () => {
    const key = `sb_live_${'Cd5'.repeat(13)}Z`;
    const manual = await start(await createFreshDatabase('bootd'), { BOOTSTRAP_API_KEY: key });
    const url = '/api/v2/sites/demo/payments/stripe';
    expect((await request(manual.server).get(url).set('x-api-key', key)).body).toMatchObject({ processor: 'manual' });
    const stripeKey = `sk_test_${'Stripe4Demo'.repeat(3)}`;
    const webhookSecret = `whsec_${'demoSecret'.repeat(4)}`;
    const connected = await start(await createFreshDatabase('boote'), {
      BOOTSTRAP_API_KEY: key,
      STRIPE_TEST_SECRET_KEY: stripeKey,
      STRIPE_TEST_WEBHOOK_SECRET: webhookSecret,
    });
    const res = await request(connected.server).get(url).set('x-api-key', key);
    expect(res.body).toMatchObject({
      processor: 'stripe',
      mode: 'test',
      test: { keyHint: `sk_test_…${stripeKey.slice(-4)}`, webhookSecretSet: true },
      live: null,
    });
    const [row] = await connected.db.query('SELECT row_to_json(p)::text AS r FROM payment_accounts p');
    expect(row.r).not.toContain(stripeKey.slice(8));
    expect(row.r).not.toContain(webhookSecret.slice(6));
  });

  it('with BOOTSTRAP_ENABLED=false an empty database stays empty', async () => {
    const url = await createFreshDatabase('bootc');
    const t = await start(url, { BOOTSTRAP_ENABLED: 'false' });
    expect(await counts(t)).toEqual({ accounts: 0, sites: 0, api_keys: 0 });
  });
});
