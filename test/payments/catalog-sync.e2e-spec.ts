import Stripe from 'stripe';
import { ProductVariantEntity } from '../../src/catalog/entities/product-variant.entity';
import { ProductEntity } from '../../src/catalog/entities/product.entity';
import { sql } from '../../src/database/sql';
import { CatalogSyncService } from '../../src/payments/catalog/catalog-sync.service';
import { eventually, startApp, TestApp } from '../support/app';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { connectStripe, StripeKeys } from '../support/stripe-connect';
import { startStripeStandIn, StripeStandIn } from '../support/stripe/stand-in';
import { agent, createTenant, Tenant } from '../support/tenant';

interface SyncedProduct {
  id: number;
  version: number;
  processorProductIdTest: string | null;
  processorProductIdLive: string | null;
  processorSync: { status: string; error: string | null; at: string | null } | null;
  variants: Array<{ id: number; processorProductIdTest: string | null; processorProductIdLive: string | null }>;
}

/**
 * docs/payments.md, "Catalog sync": a connected site's products and variants become Stripe
 * Products with one active Price in every mode with keys, through the outbox and a job, against
 * the stand-in that checks every request against Stripe's published spec.
 */
describe('payments: the catalog synced to Stripe', () => {
  let standIn: StripeStandIn;
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let keysA: { test?: StripeKeys; live?: StripeKeys };

  const url = (x: Tenant, rest = '') => `/api/v2/sites/${x.siteName}/products${rest}`;
  const redriveUrl = (x: Tenant, id: number) => url(x, `/${id}/processor-sync`);
  /** The stand-in's objects Sitebase made for a site (metadata), of one type and mode. */
  const stripeOf = (type: 'product' | 'price', site: Tenant, mode: 'test' | 'live') =>
    standIn
      .objects(type)
      .filter((o) => o.metadata?.sitebase_site_id === String(site.siteId) && o.livemode === (mode === 'live'));
  const stripeObject = (id: string | null) => standIn.objects().find((o) => o.id === id)!;
  /** The product once its sync of the current version is done. */
  const synced = (x: Tenant, id: number, status = 'synced', timeoutMs = 20000) =>
    eventually(async () => {
      const res = await x.api.get(url(x, `/${id}`));
      const body = res.body as SyncedProduct;
      return body.processorSync?.status === status ? body : undefined;
    }, timeoutMs);
  /** The product once a sync that began after `since` is done (the relay marks it pending a moment after a write). */
  const syncedSince = (x: Tenant, id: number, since: string) =>
    eventually(async () => {
      const body = (await x.api.get(url(x, `/${id}`))).body as SyncedProduct;
      return body.processorSync?.status === 'synced' && body.processorSync.at! > since ? body : undefined;
    }, 20000);
  const now = () => new Date().toISOString();
  const row = (id: number) => t.db.getRepository(ProductEntity).findOneByOrFail({ id });
  const variantRow = (id: number) => t.db.getRepository(ProductVariantEntity).findOneByOrFail({ id });
  const catalogJobs = async (siteId: number) =>
    (
      await sql<{ n: string }>(
        t.db,
        `SELECT count(*) AS n FROM pgboss.job WHERE name LIKE 'payments.catalog-%' AND (data->>'siteId')::bigint = $1`,
        [siteId],
      )
    ).rows[0].n;

  beforeAll(async () => {
    standIn = await startStripeStandIn();
    t = await startApp({
      freshDatabase: 'catalog-sync',
      env: { STRIPE_API_BASE: standIn.url, STRIPE_MAX_NETWORK_RETRIES: '1', STRIPE_TIMEOUT_MS: '2000' },
    });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
    keysA = await connectStripe(a, { modes: ['test', 'live'] });
  });

  afterAll(async () => {
    await t?.close();
    await standIn?.close();
  });

  let plan: SyncedProduct;

  it('a recurring product with a variant: a Stripe Product and Price per item in both modes, ids in v2, v1 and the rows', async () => {
    const category = await a.api.post(`/api/v2/sites/${a.siteName}/categories`).send({ name: 'Plans' }).expect(201);
    const created = await a.api
      .post(url(a))
      .send({
        name: 'Plan',
        description: 'The monthly plan.',
        processorDescription: 'Sitebase plan',
        unitAmount: 1000,
        currency: 'EUR',
        taxBehavior: 'exclusive',
        recurring: { interval: 'month', intervalCount: 1 },
        option1: 'Size',
        categoryId: category.body.id,
      })
      .expect(201);
    const id = created.body.id as number;
    // The write answers at once; the sync is pending (or already done), never in the request.
    expect(created.body.processorSync === null || created.body.processorSync.status !== 'failed').toBe(true);
    await a.api
      .post(url(a, `/${id}/variants`))
      .send({ option1Value: 'L', unitAmount: 1200 })
      .expect(201);
    plan = await eventually(async () => {
      const p = await synced(a, id);
      return p.version === 2 && p.variants[0]?.processorProductIdLive ? p : undefined;
    });
    expect(plan.processorSync).toEqual({ status: 'synced', error: null, at: ISO });
    const variantId = plan.variants[0].id;
    for (const mode of ['test', 'live'] as const) {
      const products = stripeOf('product', a, mode);
      const prices = stripeOf('price', a, mode);
      expect(products).toHaveLength(2);
      expect(prices).toHaveLength(2);
      const own = mode === 'test' ? plan.processorProductIdTest : plan.processorProductIdLive;
      const variantOwn =
        mode === 'test' ? plan.variants[0].processorProductIdTest : plan.variants[0].processorProductIdLive;
      expect(stripeObject(own)).toEqual(
        expect.objectContaining({
          object: 'product',
          name: 'Plan',
          description: 'Sitebase plan',
          active: true,
          livemode: mode === 'live',
          metadata: { sitebase_site_id: String(a.siteId), sitebase_product_id: String(id) },
        }),
      );
      expect(stripeObject(variantOwn)).toEqual(
        expect.objectContaining({
          name: 'Plan (L)',
          active: true,
          metadata: {
            sitebase_site_id: String(a.siteId),
            sitebase_product_id: String(id),
            sitebase_variant_id: String(variantId),
          },
        }),
      );
      const r = await row(id);
      const v = await variantRow(variantId);
      const [priceId, variantPriceId] =
        mode === 'test'
          ? [r.processorPriceIdTest, v.processorPriceIdTest]
          : [r.processorPriceIdLive, v.processorPriceIdLive];
      expect(stripeObject(priceId)).toEqual(
        expect.objectContaining({
          product: own,
          active: true,
          unit_amount: 1000,
          currency: 'eur',
          tax_behavior: 'exclusive',
          type: 'recurring',
          recurring: expect.objectContaining({ interval: 'month', interval_count: 1 }),
          metadata: { sitebase_site_id: String(a.siteId), sitebase_product_id: String(id) },
        }),
      );
      expect(stripeObject(variantPriceId)).toEqual(
        expect.objectContaining({ product: variantOwn, unit_amount: 1200, currency: 'eur', active: true }),
      );
    }
    // The rows hold what the answer shows; the sync did not move the product's version.
    const r = await row(id);
    expect([r.processorProductIdTest, r.processorProductIdLive, r.version]).toEqual([
      plan.processorProductIdTest,
      plan.processorProductIdLive,
      2,
    ]);
    // v1: the product's ids and its variant's, in the category it is nested in.
    const v1 = await a.api.get(`/v1/${a.siteName}/product_category/${category.body.id}`).expect(200);
    expect(v1.body.products[0]).toEqual(
      expect.objectContaining({
        product_id: id,
        processor_description: 'Sitebase plan',
        processor_product_id_test: plan.processorProductIdTest,
        processor_product_id_live: plan.processorProductIdLive,
      }),
    );
    expect(v1.body.products[0].variants[0]).toEqual(
      expect.objectContaining({
        variant_id: variantId,
        processor_product_id_test: plan.variants[0].processorProductIdTest,
        processor_product_id_live: plan.variants[0].processorProductIdLive,
      }),
    );
  });

  it('a price change makes a new Price and deactivates the old; a name change updates the Product only', async () => {
    const before = await row(plan.id);
    let since = now();
    await a.api
      .patch(url(a, `/${plan.id}`))
      .send({ unitAmount: 1500 })
      .expect(200);
    expect((await syncedSince(a, plan.id, since)).version).toBe(3);
    const after = await row(plan.id);
    for (const [old, now] of [
      [before.processorPriceIdTest, after.processorPriceIdTest],
      [before.processorPriceIdLive, after.processorPriceIdLive],
    ]) {
      expect(now).not.toBe(old);
      expect(stripeObject(old).active).toBe(false);
      expect(stripeObject(now)).toEqual(expect.objectContaining({ active: true, unit_amount: 1500 }));
    }
    // The variant has its own amount: its Price is unchanged.
    const variant = await variantRow(plan.variants[0].id);
    expect(stripeObject(variant.processorPriceIdTest).active).toBe(true);
    expect(stripeOf('price', a, 'test')).toHaveLength(3);

    since = now();
    await a.api
      .patch(url(a, `/${plan.id}`))
      .send({ name: 'Plan plus' })
      .expect(200);
    expect((await syncedSince(a, plan.id, since)).version).toBe(4);
    const renamed = await row(plan.id);
    expect(renamed.processorPriceIdTest).toBe(after.processorPriceIdTest);
    expect(stripeObject(renamed.processorProductIdTest).name).toBe('Plan plus');
    expect(stripeObject(variant.processorProductIdLive).name).toBe('Plan plus (L)');
    expect(stripeOf('price', a, 'test')).toHaveLength(3);
    expect(stripeOf('product', a, 'test')).toHaveLength(2);
  });

  it('stock taken (a write Stripe does not see) syncs nothing', async () => {
    const sent = standIn.requests.length;
    await a.api
      .patch(url(a, `/${plan.id}`))
      .send({ quantityAvailable: 50 })
      .expect(200);
    await new Promise((r) => setTimeout(r, 2500));
    expect((await synced(a, plan.id)).version).toBe(5);
    expect(standIn.requests.length).toBe(sent);
  });

  it('archiving deactivates the Stripe Products; deleting a variant or a product deactivates its Product and Price', async () => {
    const r = await row(plan.id);
    const v = await variantRow(plan.variants[0].id);
    const since = now();
    await a.api
      .patch(url(a, `/${plan.id}`))
      .send({ status: 'archived' })
      .expect(200);
    expect((await syncedSince(a, plan.id, since)).version).toBe(6);
    expect(stripeObject(r.processorProductIdTest).active).toBe(false);
    expect(stripeObject(v.processorProductIdLive).active).toBe(false);

    await a.api.delete(url(a, `/${plan.id}/variants/${v.id}`)).expect(200);
    await eventually(async () => (stripeObject(v.processorPriceIdLive).active === false ? true : undefined));
    expect(stripeObject(v.processorPriceIdTest).active).toBe(false);

    await a.api.delete(url(a, `/${plan.id}`)).expect(204);
    await eventually(async () =>
      stripeObject(r.processorPriceIdTest).active === false && stripeObject(r.processorPriceIdLive).active === false
        ? true
        : undefined,
    );
    expect(stripeObject(r.processorProductIdLive).active).toBe(false);
  });

  it('the same sync run twice at once, and Stripe answering 500 once, make one Product and one Price per mode', async () => {
    standIn.failNext({ status: 500, match: (req) => req.method === 'POST' && req.path === '/v1/prices' });
    const created = await a.api.post(url(a)).send({ name: 'Mug', unitAmount: 1800, currency: 'EUR' }).expect(201);
    const id = created.body.id as number;
    const job = t.app.get(CatalogSyncService);
    const data = { siteId: a.siteId, accountId: a.accountId, productId: id };
    await Promise.all([job.sync(data, 0), job.sync(data, 0)]);
    await synced(a, id);
    for (const mode of ['test', 'live'] as const) {
      const mine = (type: 'product' | 'price') =>
        stripeOf(type, a, mode).filter((o) => o.metadata.sitebase_product_id === String(id));
      expect(mine('product')).toHaveLength(1);
      expect(mine('price')).toHaveLength(1);
    }
    expect(standIn.requests.some((r) => r.replayed && r.path === '/v1/products')).toBe(true);
    expect(standIn.requests.some((r) => r.injected && r.path === '/v1/prices')).toBe(true);
  });

  it('429 and a timeout are retried (the job, the client) until synced', async () => {
    standIn.failNext({ status: 429, match: (req) => req.method === 'POST' && req.path === '/v1/products' });
    standIn.hangNext({ match: (req) => req.method === 'POST' && req.path === '/v1/prices' });
    const created = await a.api.post(url(a)).send({ name: 'Bowl', unitAmount: 900, currency: 'EUR' }).expect(201);
    const p = await synced(a, created.body.id as number, 'synced', 45000);
    expect(p.processorProductIdTest).toMatch(/^prod_/);
    expect(standIn.requests.filter((r) => r.injected).map((r) => [r.path, r.status])).toEqual(
      expect.arrayContaining([
        ['/v1/products', 429],
        ['/v1/prices', 0],
      ]),
    );
  }, 60000);

  it('a hand-typed id Stripe does not know: failed, with the event; fixed at Stripe, the re-drive links it', async () => {
    const from = await lastEventId(t);
    const created = await a.api
      .post(url(a))
      .send({ name: 'Linked', unitAmount: 500, currency: 'EUR', processorProductIdTest: 'prod_HandTyped1' })
      .expect(201);
    const id = created.body.id as number;
    const failed = await synced(a, id, 'failed');
    // Stripe's code and message (with its request id, for Stripe's support).
    const error = expect.stringMatching(/^resource_missing: (\[req_\w+\] )?No such product: 'prod_HandTyped1'$/);
    expect(failed.processorSync).toEqual({ status: 'failed', error, at: ISO });
    const events = await eventually(async () => {
      const found = (await eventsOf(t, a, from)).filter((e) => e.name === 'product.processor_sync_failed');
      return found.length ? found : undefined;
    });
    expect(events).toEqual([
      {
        name: 'product.processor_sync_failed',
        payload: { id, variantId: null, mode: 'test', error: failed.processorSync!.error },
      },
    ]);
    // No duplicate was made in its place.
    expect(stripeOf('product', a, 'test').filter((o) => o.metadata.sitebase_product_id === String(id))).toEqual([]);

    // The operator makes the product at Stripe, then re-drives.
    await new Stripe(keysA.test!.secretKey, standIn.clientOptions()).products.create({
      id: 'prod_HandTyped1',
      name: 'Made by hand',
    });
    const since = now();
    const redrive = await a.api.post(redriveUrl(a, id)).expect(200);
    expect(redrive.body).toEqual(
      expect.objectContaining({ id, processorSync: { status: 'pending', error: null, at: ISO } }),
    );
    const fixed = await syncedSince(a, id, since);
    expect(fixed.processorProductIdTest).toBe('prod_HandTyped1');
    expect(stripeObject('prod_HandTyped1')).toEqual(
      expect.objectContaining({
        name: 'Linked',
        metadata: { sitebase_site_id: String(a.siteId), sitebase_product_id: String(id) },
      }),
    );
  });

  it('the re-drive: 409 on a manual site, 404 for another tenant, 403 without catalog write, 401 without a key', async () => {
    const own = await b.api.post(url(b)).send({ name: 'Tea', unitAmount: 400, currency: 'EUR' }).expect(201);
    expectProblem(await b.api.post(redriveUrl(b, own.body.id)), 409, 'processor_not_connected');
    const mine = await a.api.post(url(a)).send({ name: 'Cup', unitAmount: 400, currency: 'EUR' }).expect(201);
    expectProblem(await b.api.post(redriveUrl(b, mine.body.id)), 404, 'not_found');
    expectProblem(await b.api.post(redriveUrl(a, mine.body.id)), 404, 'site_not_found');
    expectProblem(await a.api.post(redriveUrl(a, 999999999)), 404, 'not_found');
    const narrow = await a.api.post('/api/v2/api-keys').send({ name: 'read only', permissions: ['catalog:read'] });
    expect(narrow.status).toBe(201);
    expectProblem(await agent(t, narrow.body.key).post(redriveUrl(a, mine.body.id)), 403, 'insufficient_permission');
    expectProblem(await agent(t).post(redriveUrl(a, mine.body.id)), 401, 'missing_credential');
  });

  it('a manual site: no sync state, no jobs; once connected, its products made before sync', async () => {
    const c = await createTenant(t);
    const early = await c.api.post(url(c)).send({ name: 'Early', unitAmount: 700, currency: 'USD' }).expect(201);
    await c.api
      .patch(url(c, `/${early.body.id}`))
      .send({ name: 'Early bird' })
      .expect(200);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await c.api.get(url(c, `/${early.body.id}`))).body.processorSync).toBeNull();
    expect((await row(early.body.id)).processorSync).toBeNull();
    expect(await catalogJobs(c.siteId)).toBe('0');
    expect(await catalogJobs(b.siteId)).toBe('0');
    expect((await row((await b.api.get(url(b))).body.data[0].id)).processorSync).toBeNull();

    await connectStripe(c, { modes: ['test'] });
    const p = await synced(c, early.body.id);
    expect(p.processorProductIdTest).toMatch(/^prod_/);
    expect(p.processorProductIdLive).toBeNull();
    expect(stripeObject(p.processorProductIdTest)).toEqual(expect.objectContaining({ name: 'Early bird' }));
  });

  it('every request the adapter sent passed Stripe’s published spec', () => {
    console.log(`catalog sync: ${standIn.validatedCount} Stripe requests validated against the spec`);
    expect(standIn.validatedCount).toBeGreaterThan(20);
    expect(standIn.invalid()).toEqual([]);
  });
});
