import request from 'supertest';
import { ProductEntity } from '../../src/catalog/entities/product.entity';
import { ProductVariantEntity } from '../../src/catalog/entities/product-variant.entity';
import { snapshotDatabase } from '../support/db-snapshot';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { Tenant, withTenants } from '../support/tenant';

describe('/api/v2/sites/:siteName/products', () => {
  const ctx = withTenants(2, { env: { CATALOG_CACHE_TTL_MS: '0' } });
  let a: Tenant;
  let b: Tenant;
  const url = (x: Tenant, rest = '') => `/api/v2/sites/${x.siteName}/products${rest}`;
  const rows = () => ctx.t.db.getRepository(ProductEntity);
  const make = async (x: Tenant, body: Record<string, unknown>) =>
    (
      await x.api
        .post(url(x))
        .send({ unitAmount: 1000, currency: 'EUR', ...body })
        .expect(201)
    ).body as {
      id: number;
      slug: string;
    };

  beforeAll(() => {
    [a, b] = ctx.tenants;
  });

  it('creates a product: 201, Location, ETag, every field, the row and product.created', async () => {
    const category = await a.api.post(`/api/v2/sites/${a.siteName}/categories`).send({ name: 'Mugs' }).expect(201);
    const after = await lastEventId(ctx.t);
    const res = await a.api
      .post(url(a))
      .send({
        name: 'Stoneware mug',
        description: 'A 350 ml mug, glazed by hand.',
        unitAmount: 1850,
        currency: 'EUR',
        quantityAvailable: 25,
        categoryId: category.body.id,
        taxCode: 'standard',
        taxBehavior: 'exclusive',
        option1: 'Size',
        processorDescription: 'MUG-350',
        processorProductIdLive: 'prod_live_1',
        position: 4,
      })
      .expect(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'Stoneware mug',
      slug: 'stoneware-mug',
      slugPrefix: '',
      description: 'A 350 ml mug, glazed by hand.',
      status: 'published',
      unitAmount: 1850,
      currency: 'EUR',
      position: 4,
      quantityAvailable: 25,
      categoryId: category.body.id,
      taxCode: 'standard',
      taxBehavior: 'exclusive',
      recurring: null,
      option1: 'Size',
      option2: null,
      option3: null,
      processorDescription: 'MUG-350',
      processorProductIdLive: 'prod_live_1',
      processorProductIdTest: null,
      processorSync: null,
      attachmentIds: [],
      version: 1,
      createdAt: ISO,
      updatedAt: ISO,
      variants: [],
    });
    expect(res.headers.etag).toBe(`"${res.body.id}-1"`);
    expect(res.headers.location).toMatch(new RegExp(`/products/${res.body.id}$`));
    expect(await rows().findOneByOrFail({ id: res.body.id })).toEqual(
      expect.objectContaining({ siteId: a.siteId, unitAmount: 1850, currency: 'EUR', quantityAvailable: 25 }),
    );
    expect((await eventsOf(ctx.t, a, after)).map((e) => [e.name, e.payload])).toEqual([
      ['product.created', { id: res.body.id, slug: 'stoneware-mug', status: 'published', version: 1 }],
    ]);
  });

  it('a recurring plan says its period', async () => {
    const res = await a.api
      .post(url(a))
      .send({
        name: 'Monthly box',
        unitAmount: 2500,
        currency: 'USD',
        recurring: { interval: 'month', intervalCount: 1 },
      })
      .expect(201);
    expect(res.body).toEqual(
      expect.objectContaining({ recurring: { interval: 'month', intervalCount: 1 }, quantityAvailable: null }),
    );
  });

  it('refuses bad input with 400 naming the field, and stores nothing', async () => {
    const before = await snapshotDatabase(ctx.t.db);
    const base = { name: 'X', unitAmount: 100, currency: 'EUR' };
    for (const [body, path] of [
      [{ name: 'X', currency: 'EUR' }, 'unitAmount'],
      [{ ...base, unitAmount: 1.5 }, 'unitAmount'],
      [{ ...base, unitAmount: -1 }, 'unitAmount'],
      [{ ...base, currency: 'eur' }, 'currency'],
      [{ ...base, currency: 'XYZ' }, 'currency'],
      [{ ...base, taxBehavior: 'sometimes' }, 'taxBehavior'],
      [{ ...base, recurring: { interval: 'fortnight', intervalCount: 1 } }, 'recurring.interval'],
      [{ ...base, recurring: { interval: 'month', intervalCount: 0 } }, 'recurring.intervalCount'],
      [{ ...base, quantityAvailable: -1 }, 'quantityAvailable'],
      [{ ...base, status: 'hidden' }, 'status'],
      [{ ...base, categoryId: 999999 }, 'categoryId'],
      [{ ...base, attachmentIds: [999999] }, 'attachmentIds'],
    ] as const) {
      const res = await a.api.post(url(a)).send(body);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
    // Another site's category is refused like a missing one.
    const theirs = await b.api.post(`/api/v2/sites/${b.siteName}/categories`).send({ name: 'Theirs' }).expect(201);
    const before2 = await snapshotDatabase(ctx.t.db);
    const res = await a.api.post(url(a)).send({ ...base, categoryId: theirs.body.id });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([
      { path: 'categoryId', message: `category ${theirs.body.id} does not exist in this site` },
    ]);
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before2);
  });

  it('gets by id or slug; anonymous readers see published products only', async () => {
    const published = await make(a, { name: 'Teapot' });
    const draft = await make(a, { name: 'Secret teapot', status: 'draft' });
    const anonymous = request(ctx.t.server);
    const byId = await anonymous.get(url(a, `/${published.id}`)).expect(200);
    const bySlug = await anonymous.get(url(a, '/teapot')).expect(200);
    expect(bySlug.body).toEqual(byId.body);
    expectProblem(await anonymous.get(url(a, `/${draft.id}`)), 404, 'not_found');
    expect((await a.api.get(url(a, `/${draft.id}`)).expect(200)).body.status).toBe('draft');
    expectProblem(await a.api.get(url(a, '/0123')), 400, 'validation_failed');
  });

  it('lists by position with filters: category, price range, currency, stock, recurring, words; keyset pages', async () => {
    const x = b;
    const cat = (await x.api.post(`/api/v2/sites/${x.siteName}/categories`).send({ name: 'Tea' }).expect(201)).body
      .id as number;
    await make(x, { name: 'Green tea', unitAmount: 500, position: 1, categoryId: cat, quantityAvailable: 0 });
    await make(x, { name: 'Black tea', unitAmount: 700, position: 2, categoryId: cat, description: 'Smoky leaves' });
    await make(x, {
      name: 'Tea club',
      unitAmount: 1500,
      position: 3,
      recurring: { interval: 'month', intervalCount: 1 },
    });
    await make(x, { name: 'Kettle', unitAmount: 4000, position: 4, currency: 'USD' });
    await make(x, { name: 'Hidden kettle', unitAmount: 4000, position: 5, status: 'draft' });
    const names = async (query: string, key = true) => {
      const res = await (
        key ? x.api.get(`${url(x)}?${query}`) : request(ctx.t.server).get(`${url(x)}?${query}`)
      ).expect(200);
      return res.body.data.map((p: { name: string }) => p.name) as string[];
    };
    expect(await names('')).toEqual(['Green tea', 'Black tea', 'Tea club', 'Kettle', 'Hidden kettle']);
    expect(await names('', false)).toEqual(['Green tea', 'Black tea', 'Tea club', 'Kettle']);
    expect(await names(`categoryId=${cat}`)).toEqual(['Green tea', 'Black tea']);
    expect(await names('minAmount=600&maxAmount=1500')).toEqual(['Black tea', 'Tea club']);
    expect(await names('currency=USD')).toEqual(['Kettle']);
    expect(await names('inStock=false')).toEqual(['Green tea']);
    expect(await names('inStock=true&recurring=false', false)).toEqual(['Black tea', 'Kettle']);
    expect(await names('recurring=true')).toEqual(['Tea club']);
    expect(await names('q=smoky')).toEqual(['Black tea']);
    expect(await names('status=draft')).toEqual(['Hidden kettle']);
    expect(await names('status=draft', false)).toEqual([]);
    const page = await x.api.get(`${url(x)}?limit=2`).expect(200);
    const next = await x.api.get(`${url(x)}?limit=2&cursor=${page.body.pagination.nextCursor}`).expect(200);
    expect(next.body.data.map((p: { name: string }) => p.name)).toEqual(['Tea club', 'Kettle']);
    for (const q of ['inStock=yes', 'minAmount=-1', 'currency=usd', 'categoryId=0x1', 'status=gone'])
      expectProblem(await x.api.get(`${url(x)}?${q}`), 400, 'validation_failed');
  });

  it('updates with If-Match: the ETag moves, a stale one is a 412 and changes nothing', async () => {
    const p = await make(a, { name: 'Jug' });
    const first = await a.api.get(url(a, `/${p.id}`)).expect(200);
    const updated = await a.api
      .patch(url(a, `/${p.id}`))
      .set('If-Match', first.headers.etag)
      .send({ unitAmount: 1200, recurring: { interval: 'year', intervalCount: 1 }, taxCode: null })
      .expect(200);
    expect(updated.body).toEqual(
      expect.objectContaining({ unitAmount: 1200, version: 2, recurring: { interval: 'year', intervalCount: 1 } }),
    );
    expect(updated.headers.etag).toBe(`"${p.id}-2"`);
    const stale = await a.api
      .patch(url(a, `/${p.id}`))
      .set('If-Match', first.headers.etag)
      .send({ unitAmount: 1 });
    expectProblem(stale, 412, 'precondition_failed');
    expect((await rows().findOneByOrFail({ id: p.id })).unitAmount).toBe(1200);
    const cleared = await a.api
      .patch(url(a, `/${p.id}`))
      .send({ recurring: null })
      .expect(200);
    expect(cleared.body.recurring).toBeNull();
  });

  it('variants (admin): one per combination, their own price, stock and SKU; the product version moves', async () => {
    const p = await make(a, { name: 'Tee', option1: 'Size', option2: 'Colour' });
    const one = await a.api
      .post(url(a, `/${p.id}/variants`))
      .send({ option1Value: 'M', option2Value: 'Blue', unitAmount: 2000, quantityAvailable: 3, sku: 'TEE-M-BLU' })
      .expect(201);
    expect(one.body.version).toBe(2);
    expect(one.body.variants).toEqual([
      {
        id: expect.any(Number),
        option1Value: 'M',
        option2Value: 'Blue',
        option3Value: null,
        unitAmount: 2000,
        quantityAvailable: 3,
        sku: 'TEE-M-BLU',
        position: 0,
        processorProductIdLive: null,
        processorProductIdTest: null,
        createdAt: ISO,
        updatedAt: ISO,
      },
    ]);
    const variantId = one.body.variants[0].id as number;
    expectProblem(
      await a.api.post(url(a, `/${p.id}/variants`)).send({ option1Value: 'M', option2Value: 'Blue' }),
      409,
      'duplicate_variant',
    );
    expectProblem(
      await a.api.post(url(a, `/${p.id}/variants`)).send({ option1Value: 'L', sku: 'TEE-M-BLU' }),
      409,
      'duplicate_sku',
    );
    const noOption3 = await a.api.post(url(a, `/${p.id}/variants`)).send({ option3Value: 'Cotton' });
    expectProblem(noOption3, 400, 'validation_failed');
    expect(noOption3.body.errors[0].path).toBe('option3Value');
    const patched = await a.api
      .patch(url(a, `/${p.id}/variants/${variantId}`))
      .send({ quantityAvailable: 5 })
      .expect(200);
    expect(patched.body.variants[0].quantityAvailable).toBe(5);
    const got = await request(ctx.t.server)
      .get(url(a, `/${p.id}`))
      .expect(200);
    expect(got.body.variants.map((v: { id: number }) => v.id)).toEqual([variantId]);
    const removed = await a.api.delete(url(a, `/${p.id}/variants/${variantId}`)).expect(200);
    expect(removed.body.variants).toEqual([]);
    expect(await ctx.t.db.getRepository(ProductVariantEntity).countBy({ productId: p.id })).toBe(0);
    expectProblem(await a.api.delete(url(a, `/${p.id}/variants/${variantId}`)), 404, 'not_found');
  });

  it('deletes a product with its variants; another site’s product is a 404; writes need a key', async () => {
    const p = await make(a, { name: 'Saucer', option1: 'Size' });
    await a.api
      .post(url(a, `/${p.id}/variants`))
      .send({ option1Value: 'S' })
      .expect(201);
    expectProblem(await b.api.get(url(b, `/${p.id}`)), 404, 'not_found');
    expectProblem(await b.api.patch(url(b, `/${p.id}`)).send({ name: 'Mine' }), 404, 'not_found');
    expectProblem(await b.api.delete(url(b, `/${p.id}`)), 404, 'not_found');
    expectProblem(await b.api.post(url(b, `/${p.id}/variants`)).send({ option1Value: 'L' }), 404, 'not_found');
    expectProblem(
      await request(ctx.t.server)
        .patch(url(a, `/${p.id}`))
        .send({ name: 'X' }),
      401,
      'missing_credential',
    );
    const after = await lastEventId(ctx.t);
    await a.api.delete(url(a, `/${p.id}`)).expect(204);
    expect(await rows().findOneBy({ id: p.id })).toBeNull();
    expect(await ctx.t.db.getRepository(ProductVariantEntity).countBy({ productId: p.id })).toBe(0);
    expect((await eventsOf(ctx.t, a, after)).map((e) => e.name)).toEqual(['product.deleted']);
  });
});
