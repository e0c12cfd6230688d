import { ContentItemEntity } from '../../src/content/entities/content-item.entity';
import { MediaItemEntity } from '../../src/media/entities/media-item.entity';
import { formData, withClient } from '../support/api-client';
import { makePdf, makePng, tempMediaDir } from '../support/files';

/** Every v1 operation through the generated client (docs/openapi.md). */
describe('generated client: v1', () => {
  const media = tempMediaDir('v1-client');
  const s = withClient(2, { env: { MEDIA_LOCAL_DIR: media.dir } });
  const items = () => s.t.db.getRepository(MediaItemEntity);

  afterAll(() => media.remove());

  it('pages: create, get by id, by slug and all, update, list, delete', async () => {
    const site_name = s.a.siteName;
    const created = await s.api.POST('/v1/{site_name}/pages', {
      params: { path: { site_name } },
      body: { title: 'About us', content: '<p>We</p>', page_type: 'page' },
    });
    expect(created.response.status).toBe(200);
    const page = created.data!;
    expect(page).toEqual(expect.objectContaining({ title: 'About us', slug: 'about-us', page_type: 'page' }));
    expect(await s.t.db.getRepository(ContentItemEntity).findOneByOrFail({ id: page.page_id })).toEqual(
      expect.objectContaining({ siteId: s.a.siteId, title: 'About us', type: 'page' }),
    );

    const byId = await s.api.GET('/v1/{site_name}/pages/{page_id}', {
      params: { path: { site_name, page_id: String(page.page_id) } },
    });
    const bySlug = await s.api.GET('/v1/{site_name}/pages/{page_id}', {
      params: { path: { site_name, page_id: 'about-us' } },
    });
    const all = await s.api.GET('/v1/{site_name}/pages/{page_id}', { params: { path: { site_name, page_id: 'all' } } });
    expect([byId.response.status, bySlug.response.status, all.response.status]).toEqual([200, 200, 200]);
    expect(bySlug.data).toEqual(byId.data);
    expect(Array.isArray(all.data) ? all.data.map((p) => p.page_id) : 'not an array').toEqual([page.page_id]);

    const updated = await s.api.PUT('/v1/{site_name}/pages/{page_id}', {
      params: { path: { site_name, page_id: page.page_id } },
      body: { post_title: 'About the team' },
    });
    expect([updated.response.status, updated.data?.title]).toEqual([200, 'About the team']);
    expect((await s.t.db.getRepository(ContentItemEntity).findOneByOrFail({ id: page.page_id })).title).toBe(
      'About the team',
    );

    const list = await s.api.GET('/v1/{site_name}/pages/{limit}/{offset}', {
      params: { path: { site_name, limit: 10, offset: 0 } },
    });
    expect(list.response.status).toBe(200);
    expect(list.data).toEqual(expect.objectContaining({ total: 1 }));

    const theirs = await s.contract.as(s.b.key).DELETE('/v1/{site_name}/pages/{page_id}', {
      params: { path: { site_name: s.b.siteName, page_id: page.page_id } },
    });
    expect(theirs.response.status).toBe(404);
    const removed = await s.api.DELETE('/v1/{site_name}/pages/{page_id}', {
      params: { path: { site_name, page_id: page.page_id } },
    });
    expect([removed.response.status, removed.data]).toEqual([200, { deleted: true, page_id: page.page_id }]);
    expect(await s.t.db.getRepository(ContentItemEntity).findOneBy({ id: page.page_id })).toBeNull();
  });

  it('media: upload (200, Location, no body) and list', async () => {
    const uploaded = await s.api.POST('/v1/{site_name}/media', {
      params: { path: { site_name: s.a.siteName } },
      body: { file: new File([await makePng(40, 30)], 'logo.png', { type: 'image/png' }), title: 'Logo' },
      bodySerializer: formData,
    });
    expect([uploaded.response.status, uploaded.response.headers.get('content-length')]).toEqual([200, '0']);
    const location = uploaded.response.headers.get('location')!;
    const row = await items().findOneByOrFail({ siteId: s.a.siteId, fileName: 'logo.png' });
    expect(location.endsWith(row.storageKey)).toBe(true);
    expect(row).toEqual(expect.objectContaining({ title: 'Logo', width: 40, height: 30 }));

    const list = await s.api.GET('/v1/{site_name}/media/{limit}/{offset}', {
      params: { path: { site_name: s.a.siteName, limit: 10, offset: 0 } },
    });
    expect(list.response.status).toBe(200);
    expect(list.data).toEqual(expect.objectContaining({ total: 1 }));
  });

  it('project media: upload several (204) and delete by key (204)', async () => {
    const path = { organization_id: s.a.accountId, project_id: s.a.siteId };
    const uploaded = await s.api.POST('/v1/project/{organization_id}/{project_id}/media', {
      params: { path },
      body: { file: [new File([makePdf('one')], 'one.pdf', { type: 'application/pdf' })] },
      bodySerializer: formData,
    });
    expect(uploaded.response.status).toBe(204);
    const row = await items().findOneByOrFail({ siteId: s.a.siteId, fileName: 'one.pdf' });
    const removed = await s.api.DELETE('/v1/project/{organization_id}/{project_id}/media', {
      params: { path },
      body: { keys: [row.storageKey] },
    });
    expect(removed.response.status).toBe(204);
    expect(await items().findOneBy({ id: row.id })).toBeNull();
  });

  it('catalog: update a product, add a variant, get a product category with its products', async () => {
    const site_name = s.a.siteName;
    const category = await s.api.POST('/api/v2/sites/{siteName}/categories', {
      params: { path: { siteName: site_name } },
      body: { name: 'Mugs' },
    });
    const product = await s.api.POST('/api/v2/sites/{siteName}/products', {
      params: { path: { siteName: site_name } },
      body: { name: 'Mug', unitAmount: 1800, currency: 'EUR', categoryId: category.data!.id },
    });
    const product_id = product.data!.id;
    const updated = await s.api.PUT('/v1/{site_name}/products/{product_id}', {
      params: { path: { site_name, product_id } },
      body: { price: 19.5, quantity_available: 4 },
    });
    expect([updated.response.status, updated.data?.unit_amount, updated.data?.quantity_available]).toEqual([
      200, 1950, 4,
    ]);
    const withVariant = await s.api.PUT('/v1/{site_name}/products/{product_id}/variant', {
      params: { path: { site_name, product_id } },
      body: { variant: { option1: 'Size', option1_value: 'M' } },
    });
    expect(withVariant.data?.variants.map((v) => [v.option1, v.option1_value, v.unit_amount])).toEqual([
      ['Size', 'M', 1950],
    ]);
    const got = await s.api.GET('/v1/{site_name}/product_category/{product_category_id}', {
      params: { path: { site_name, product_category_id: category.data!.id } },
    });
    expect([got.response.status, got.data?.category, got.data?.products.map((p) => p.product_id)]).toEqual([
      200,
      'Mugs',
      [product_id],
    ]);
    expect(got.data?.products[0].variants).toHaveLength(1);
    const missing = await s.api.GET('/v1/{site_name}/product_category/{product_category_id}', {
      params: { path: { site_name, product_category_id: 999999 } },
    });
    expect([missing.response.status, missing.error?.code]).toEqual([404, 'not_found']);
  });

  it('called every v1 operation through the client', () => {
    expect(s.contract.uncalled(['v1 legacy'])).toEqual([]);
  });
});
