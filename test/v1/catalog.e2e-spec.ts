import request from 'supertest';
import { ProductEntity } from '../../src/catalog/entities/product.entity';
import { ProductVariantEntity } from '../../src/catalog/entities/product-variant.entity';
import { startApp, TestApp } from '../support/app';
import { snapshotDatabase } from '../support/db-snapshot';
import { makePng, tempMediaDir } from '../support/files';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';

describe('v1 products and product categories', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  const mediaDir = tempMediaDir('v1-catalog');

  beforeAll(async () => {
    t = await startApp({ env: { MEDIA_LOCAL_DIR: mediaDir.dir, PUBLIC_BASE_URL: 'http://media.test' } });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(async () => {
    await t.close();
    mediaDir.remove();
  });

  const v2 = (x: Tenant, rest: string) => `/api/v2/sites/${x.siteName}${rest}`;
  const products = (x: Tenant, rest = '') => `/v1/${x.siteName}/products${rest}`;
  const upload = async (x: Tenant, name: string): Promise<number> =>
    (
      await x.api
        .post(v2(x, '/media'))
        .attach('file', await makePng(20, 10), name)
        .expect(201)
    ).body.id as number;
  const product = async (x: Tenant, body: Record<string, unknown>) =>
    (
      await x.api
        .post(v2(x, '/products'))
        .send({ unitAmount: 1850, currency: 'EUR', ...body })
        .expect(201)
    ).body as {
      id: number;
    };

  it('GET product_category nests products, their variants and media, in the v1 shape', async () => {
    const cover = await upload(a, 'cover.png');
    const photo = await upload(a, 'mug.png');
    const category = (
      await a.api
        .post(v2(a, '/categories'))
        .send({ name: 'Mugs', slugPrefix: 'shop', description: 'Stoneware', attachmentIds: [cover] })
        .expect(201)
    ).body as { id: number };
    const mug = await product(a, {
      name: 'Mug',
      categoryId: category.id,
      option1: 'Size',
      attachmentIds: [photo],
      quantityAvailable: 7,
      position: 2,
    });
    await a.api.post(v2(a, `/products/${mug.id}/variants`)).send({ option1Value: 'L', unitAmount: 2000, sku: 'MUG-L' });
    const cup = await product(a, {
      name: 'Cup',
      categoryId: category.id,
      unitAmount: 500,
      currency: 'JPY',
      position: 1,
    });
    const res = await a.api.get(`/v1/${a.siteName}/product_category/${category.id}`).expect(200);
    const media = (id: number, file: string) =>
      expect.objectContaining({ media_id: id, file_name: file, site_name: a.siteName, link: expect.any(String) });
    expect(res.body).toEqual({
      category_id: category.id,
      category: 'Mugs',
      site_name: a.siteName,
      slug: 'shop-mugs',
      slug_prefix: 'shop',
      description: 'Stoneware',
      media: [media(cover, 'cover.png')],
      products: [
        {
          product_id: cup.id,
          product: 'Cup',
          slug: 'cup',
          description: '',
          price: 500,
          unit_amount: 500,
          currency: 'JPY',
          order: 1,
          quantity_available: null,
          product_category_id: category.id,
          processor_description: '',
          // Strings, "" when unset, as the v1 interface types them (issue #30, row 14).
          processor_product_id_live: '',
          processor_product_id_test: '',
          product_date: ISO,
          product_modified: ISO,
          media: [],
          variants: [],
        },
        expect.objectContaining({
          product_id: mug.id,
          product: 'Mug',
          price: 18.5,
          unit_amount: 1850,
          currency: 'EUR',
          order: 2,
          quantity_available: 7,
          media: [media(photo, 'mug.png')],
          variants: [
            {
              variant_id: expect.any(Number),
              option1: 'Size',
              option1_value: 'L',
              option2: null,
              option2_value: null,
              option3: null,
              option3_value: null,
              price: 20,
              unit_amount: 2000,
              quantity_available: null,
              sku: 'MUG-L',
              processor_product_id_live: '',
              processor_product_id_test: '',
            },
          ],
        }),
      ],
    });
    expectProblem(await b.api.get(`/v1/${b.siteName}/product_category/${category.id}`), 404, 'not_found');
    expectProblem(
      await request(t.server).get(`/v1/${a.siteName}/product_category/${category.id}`),
      401,
      'missing_api_key',
    );
  });

  it('processor ids are strings: the stored id, or "" when unset (issue #30, row 14)', async () => {
    const set = await product(a, { name: 'Set', processorProductIdLive: 'prod_live_9' });
    const unset = await product(a, { name: 'Unset' });
    const one = await a.api
      .put(products(a, `/${set.id}`))
      .send({ description: 'x' })
      .expect(200);
    expect([one.body.processor_product_id_live, one.body.processor_product_id_test]).toEqual(['prod_live_9', '']);
    const other = await a.api
      .put(products(a, `/${unset.id}`))
      .send({ description: 'y' })
      .expect(200);
    expect([other.body.processor_product_id_live, other.body.processor_product_id_test]).toEqual(['', '']);
    // Unset stays NULL in the database: only the v1 answer reads it as "".
    expect(await t.db.getRepository(ProductEntity).findOneByOrFail({ id: unset.id })).toEqual(
      expect.objectContaining({ processorProductIdLive: null, processorProductIdTest: null }),
    );
  });

  it('PUT products: price in major units and unit_amount in minor units, either way', async () => {
    const p = await product(a, { name: 'Plate' });
    const byPrice = await a.api
      .put(products(a, `/${p.id}`))
      .send({ price: 12.5 })
      .expect(200);
    expect([byPrice.body.price, byPrice.body.unit_amount]).toEqual([12.5, 1250]);
    const byAmount = await a.api
      .put(products(a, `/${p.id}`))
      .send({ unit_amount: 999 })
      .expect(200);
    expect([byAmount.body.price, byAmount.body.unit_amount]).toEqual([9.99, 999]);
    const both = await a.api
      .put(products(a, `/${p.id}`))
      .send({ price: 3, unit_amount: 300 })
      .expect(200);
    expect(both.body.unit_amount).toBe(300);
    // A new currency converts the price with its own minor units.
    const yen = await a.api
      .put(products(a, `/${p.id}`))
      .send({ price: 1200, currency: 'JPY' })
      .expect(200);
    expect([yen.body.price, yen.body.unit_amount, yen.body.currency]).toEqual([1200, 1200, 'JPY']);
    expect((await t.db.getRepository(ProductEntity).findOneByOrFail({ id: p.id })).unitAmount).toBe(1200);
    const before = await snapshotDatabase(t.db);
    const disagree = await a.api.put(products(a, `/${p.id}`)).send({ price: 3, unit_amount: 301 });
    expectProblem(disagree, 400, 'validation_failed');
    expect(disagree.body.errors[0].path).toBe('unit_amount');
    const tooFine = await a.api.put(products(a, `/${p.id}`)).send({ price: 1.5 });
    expectProblem(tooFine, 400, 'validation_failed');
    expect(tooFine.body.errors[0]).toEqual({ path: 'price', message: 'has more decimals than JPY has' });
    expect(await snapshotDatabase(t.db)).toEqual(before);
  });

  it('PUT products: every field, attachments added unless replace_attachments, v1 names in errors', async () => {
    const [m1, m2] = [await upload(a, 'one.png'), await upload(a, 'two.png')];
    const category = (await a.api.post(v2(a, '/categories')).send({ name: 'Bowls' }).expect(201)).body.id as number;
    const p = await product(a, { name: 'Bowl', attachmentIds: [m1] });
    const res = await a.api
      .put(products(a, `/${p.id}`))
      .send({
        product: 'Deep bowl',
        description: 'Deep',
        order: 9,
        quantity_available: 4,
        product_category_id: category,
        tax: 'reduced',
        tax_behavior: 'inclusive',
        recurring: 'month',
        option1: 'Colour',
        processor_description: 'BOWL',
        attachment_ids: [m2],
      })
      .expect(200);
    expect(res.body).toEqual(
      expect.objectContaining({
        product_id: p.id,
        product: 'Deep bowl',
        description: 'Deep',
        order: 9,
        quantity_available: 4,
        product_category_id: category,
        processor_description: 'BOWL',
        product_modified: ISO,
      }),
    );
    expect(res.body.media.map((m: { media_id: number }) => m.media_id)).toEqual([m1, m2]);
    expect(await t.db.getRepository(ProductEntity).findOneByOrFail({ id: p.id })).toEqual(
      expect.objectContaining({
        taxCode: 'reduced',
        taxBehavior: 'inclusive',
        recurringInterval: 'month',
        recurringIntervalCount: 1,
        option1: 'Colour',
        attachmentIds: [m1, m2],
      }),
    );
    const replaced = await a.api
      .put(products(a, `/${p.id}`))
      .send({ attachment_ids: [m2], replace_attachments: true })
      .expect(200);
    expect(replaced.body.media.map((m: { media_id: number }) => m.media_id)).toEqual([m2]);
    const bad = await a.api.put(products(a, `/${p.id}`)).send({ product_category_id: 999999 });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors[0].path).toBe('product_category_id');
    expectProblem(await a.api.put(products(a, `/${p.id}`)).send({ tax_behavior: 'maybe' }), 400, 'validation_failed');
    expectProblem(await a.api.put(products(a, '/999999')).send({ product: 'X' }), 404, 'not_found');
    expectProblem(await b.api.put(products(b, `/${p.id}`)).send({ product: 'X' }), 404, 'not_found');
    expectProblem(
      await request(t.server)
        .put(products(a, `/${p.id}`))
        .send({ product: 'X' }),
      401,
      'missing_api_key',
    );
  });

  it('PUT …/variant creates a variant and answers the product with its variants', async () => {
    const p = await product(a, { name: 'Tee' });
    const res = await a.api
      .put(products(a, `/${p.id}/variant`))
      .send({ variant: { option1: 'Size', option1_value: 'M', price: 21, quantity_available: 3, sku: 'TEE-M' } })
      .expect(200);
    expect(res.body.variants).toEqual([
      {
        variant_id: expect.any(Number),
        option1: 'Size',
        option1_value: 'M',
        option2: null,
        option2_value: null,
        option3: null,
        option3_value: null,
        price: 21,
        unit_amount: 2100,
        quantity_available: 3,
        sku: 'TEE-M',
        processor_product_id_live: '',
        processor_product_id_test: '',
      },
    ]);
    // The variant named the product's first option.
    expect((await t.db.getRepository(ProductEntity).findOneByOrFail({ id: p.id })).option1).toBe('Size');
    const second = await a.api
      .put(products(a, `/${p.id}/variant`))
      .send({ product: 'Cotton tee', variant: { option1_value: 'L', unit_amount: 2200 } })
      .expect(200);
    expect(second.body.product).toBe('Cotton tee');
    expect(second.body.variants.map((v: { option1_value: string }) => v.option1_value)).toEqual(['M', 'L']);
    expect(await t.db.getRepository(ProductVariantEntity).countBy({ productId: p.id })).toBe(2);
    const before = await snapshotDatabase(t.db);
    expectProblem(
      await a.api.put(products(a, `/${p.id}/variant`)).send({ variant: { option1_value: 'M' } }),
      409,
      'duplicate_variant',
    );
    const otherName = await a.api
      .put(products(a, `/${p.id}/variant`))
      .send({ variant: { option1: 'Colour', option1_value: 'Red' } });
    expectProblem(otherName, 400, 'validation_failed');
    expect(otherName.body.errors[0].path).toBe('variant.option1');
    const noVariant = await a.api.put(products(a, `/${p.id}/variant`)).send({ product: 'X' });
    expectProblem(noVariant, 400, 'validation_failed');
    expect(noVariant.body.errors[0].path).toBe('variant');
    const badPrice = await a.api
      .put(products(a, `/${p.id}/variant`))
      .send({ variant: { option1_value: 'XL', price: 1, unit_amount: 2 } });
    expectProblem(badPrice, 400, 'validation_failed');
    expect(badPrice.body.errors[0].path).toBe('variant.unit_amount');
    expect(await snapshotDatabase(t.db)).toEqual(before);
  });
});
