import request from 'supertest';
import { eventually, startApp, TestApp } from '../support/app';
import { makeProduct } from '../support/commerce';
import { createTenant, Tenant } from '../support/tenant';
import { unannounced } from '../support/unannounced';

/**
 * The catalog's read cache (CATALOG_CACHE_TTL_MS, docs/catalog.md): products under keys naming who
 * may see drafts, categories once for every reader. Ten minutes of TTL: anything fresh comes from
 * the invalidation.
 */
describe('catalog read cache', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startApp({ env: { CATALOG_CACHE_TTL_MS: '600000', RATE_LIMIT_PUBLIC_MAX: '100000' } });
    a = await createTenant(t);
    b = await createTenant(t);
  });
  afterAll(() => t.close());

  const products = (x: Tenant, rest = '') => `/api/v2/sites/${x.siteName}/products${rest}`;
  const names = (res: { body: { data: Array<{ name: string }> } }) => res.body.data.map((p) => p.name);
  const anon = (url: string) => request(t.server).get(url);

  it('serves products to key holders and anonymous readers from memory, no draft to the anonymous, no row to another site', async () => {
    const shown = await makeProduct(a, { name: 'Shown mug' });
    const draft = await makeProduct(a, { name: 'Secret mug', status: 'draft' });
    const theirs = await makeProduct(b, { name: 'Their mug' });
    // Key holders first, so what they cached is there to leak.
    expect(names(await a.api.get(products(a)).expect(200))).toEqual(
      expect.arrayContaining(['Shown mug', 'Secret mug']),
    );
    expect((await a.api.get(products(a, `/${draft.id}`))).status).toBe(200);
    expect(names(await anon(products(a)).expect(200))).toEqual(['Shown mug']);
    expect((await anon(products(a, `/${draft.id}`))).status).toBe(404);
    expect((await anon(products(a, `/${draft.slug as string}`))).status).toBe(404);
    expect(names(await b.api.get(products(b)).expect(200))).toEqual(['Their mug']);
    expect(names(await anon(products(b)).expect(200))).toEqual(['Their mug']);
    expect((await b.api.get(products(b, `/${shown.id}`))).status).toBe(404);

    await unannounced(t.db, 'UPDATE products SET name = $1 WHERE id = ANY($2::bigint[])', [
      'Renamed unannounced',
      [shown.id, draft.id, theirs.id],
    ]);
    // Served from memory: nobody told this instance.
    expect((await a.api.get(products(a, `/${draft.id}`))).body.name).toBe('Secret mug');
    expect(names(await anon(products(a)).expect(200))).toEqual(['Shown mug']);
    expect(names(await b.api.get(products(b)).expect(200))).toEqual(['Their mug']);
    // A write to site A drops site A's entries only.
    await makeProduct(a, { name: 'Another mug' });
    expect(names(await anon(products(a)).expect(200))).toEqual(
      expect.arrayContaining(['Renamed unannounced', 'Another mug']),
    );
    expect(names(await b.api.get(products(b)).expect(200))).toEqual(['Their mug']);
  });

  it('stock changed by SQL outside the catalog (an order, an operator) is seen once its NOTIFY arrives', async () => {
    const mug = await makeProduct(a, { name: 'Counted mug', quantityAvailable: 5 });
    expect((await anon(products(a, `/${mug.id}`))).body.quantityAvailable).toBe(5);
    expect((await a.api.get(products(a, `/${mug.id}`))).body.quantityAvailable).toBe(5);
    await t.db.query('UPDATE products SET quantity_available = 2 WHERE id = $1', [mug.id]);
    await eventually(
      async () => ((await anon(products(a, `/${mug.id}`))).body.quantityAvailable === 2 ? true : undefined),
      1000,
      5,
    );
    expect((await a.api.get(products(a, `/${mug.id}`))).body.quantityAvailable).toBe(2);
  });

  it('categories, which have no drafts, are one entry for every reader', async () => {
    const made = await a.api.post(`/api/v2/sites/${a.siteName}/categories`).send({ name: 'Cups' });
    expect(made.status).toBe(201);
    const url = `/api/v2/sites/${a.siteName}/categories/${made.body.id}`;
    expect((await a.api.get(url)).body.name).toBe('Cups');
    await unannounced(t.db, 'UPDATE product_categories SET name = $1 WHERE id = $2', ['Mugs', made.body.id]);
    expect((await anon(url)).body.name).toBe('Cups');
    expect((await b.api.get(`/api/v2/sites/${b.siteName}/categories/${made.body.id}`)).status).toBe(404);
  });
});
