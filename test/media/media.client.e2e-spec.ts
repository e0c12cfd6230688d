import { MediaItemEntity } from '../../src/media/entities/media-item.entity';
import { MediaCategoryEntity, MediaTagEntity } from '../../src/media/entities/media-term.entity';
import { formData, withClient } from '../support/api-client';
import { makePng, tempMediaDir } from '../support/files';

/** Every Media operation through the generated client (docs/openapi.md). */
describe('generated client: media', () => {
  const media = tempMediaDir('media-client');
  const s = withClient(2, { env: { MEDIA_LOCAL_DIR: media.dir } });
  const site = () => ({ siteName: s.a.siteName });

  afterAll(() => media.remove());

  it('categories: create, get, update, list, delete', async () => {
    const created = await s.api.POST('/api/v2/sites/{siteName}/media/categories', {
      params: { path: site() },
      body: { name: 'Harbours' },
    });
    expect(created.response.status).toBe(201);
    const id = created.data!.id;
    expect(created.data).toEqual(expect.objectContaining({ name: 'Harbours', slug: 'harbours' }));
    const got = await s.api.GET('/api/v2/sites/{siteName}/media/categories/{id}', {
      params: { path: { ...site(), id } },
    });
    expect([got.response.status, got.data?.name]).toEqual([200, 'Harbours']);
    const updated = await s.api.PATCH('/api/v2/sites/{siteName}/media/categories/{id}', {
      params: { path: { ...site(), id } },
      body: { description: 'Boats and quays' },
    });
    expect([updated.response.status, updated.data?.description]).toEqual([200, 'Boats and quays']);
    expect(await s.t.db.getRepository(MediaCategoryEntity).findOneByOrFail({ id })).toEqual(
      expect.objectContaining({ siteId: s.a.siteId, description: 'Boats and quays' }),
    );
    const list = await s.api.GET('/api/v2/sites/{siteName}/media/categories', { params: { path: site() } });
    expect(list.data!.data.map((c) => c.id)).toEqual([id]);
    const removed = await s.api.DELETE('/api/v2/sites/{siteName}/media/categories/{id}', {
      params: { path: { ...site(), id } },
    });
    expect(removed.response.status).toBe(204);
    expect(await s.t.db.getRepository(MediaCategoryEntity).findOneBy({ id })).toBeNull();
  });

  it('tags: create, get, update, list, delete', async () => {
    const created = await s.api.POST('/api/v2/sites/{siteName}/media/tags', {
      params: { path: site() },
      body: { name: 'Dawn' },
    });
    expect(created.response.status).toBe(201);
    const id = created.data!.id;
    const got = await s.api.GET('/api/v2/sites/{siteName}/media/tags/{id}', { params: { path: { ...site(), id } } });
    expect([got.response.status, got.data?.slug]).toEqual([200, 'dawn']);
    const updated = await s.api.PATCH('/api/v2/sites/{siteName}/media/tags/{id}', {
      params: { path: { ...site(), id } },
      body: { name: 'Early dawn' },
    });
    expect([updated.response.status, updated.data?.name]).toEqual([200, 'Early dawn']);
    expect(await s.t.db.getRepository(MediaTagEntity).findOneByOrFail({ id })).toEqual(
      expect.objectContaining({ siteId: s.a.siteId, name: 'Early dawn' }),
    );
    const list = await s.api.GET('/api/v2/sites/{siteName}/media/tags', { params: { path: site() } });
    expect(list.data!.data.map((t) => t.id)).toEqual([id]);
    const theirs = await s.contract.as(s.b.key).GET('/api/v2/sites/{siteName}/media/tags/{id}', {
      params: { path: { siteName: s.b.siteName, id } },
    });
    expect([theirs.response.status, theirs.error?.code]).toEqual([404, 'not_found']);
    const removed = await s.api.DELETE('/api/v2/sites/{siteName}/media/tags/{id}', {
      params: { path: { ...site(), id } },
    });
    expect(removed.response.status).toBe(204);
  });

  it('items: upload (multipart), get, update, list, delete', async () => {
    const png = await makePng(300, 200);
    const uploaded = await s.api.POST('/api/v2/sites/{siteName}/media', {
      params: { path: site() },
      body: { file: new File([png], 'harbour.png', { type: 'image/png' }), title: 'Harbour', altText: 'Boats' },
      bodySerializer: formData,
    });
    expect(uploaded.response.status).toBe(201);
    const item = uploaded.data!;
    expect(item).toEqual(
      expect.objectContaining({ title: 'Harbour', altText: 'Boats', fileName: 'harbour.png', width: 300, height: 200 }),
    );
    expect(item.thumbnails.length).toBeGreaterThan(0);
    expect(await s.t.db.getRepository(MediaItemEntity).findOneByOrFail({ id: item.id })).toEqual(
      expect.objectContaining({ siteId: s.a.siteId, title: 'Harbour', originalId: null }),
    );

    const got = await s.api.GET('/api/v2/sites/{siteName}/media/{id}', {
      params: { path: { ...site(), id: item.id } },
    });
    expect([got.response.status, got.data?.link]).toEqual([200, item.link]);
    const updated = await s.api.PATCH('/api/v2/sites/{siteName}/media/{id}', {
      params: { path: { ...site(), id: item.id } },
      body: { caption: 'At dawn' },
    });
    expect([updated.response.status, updated.data?.caption]).toEqual([200, 'At dawn']);
    const list = await s.api.GET('/api/v2/sites/{siteName}/media', {
      params: { path: site(), query: { original: true } },
    });
    expect(list.data!.data.map((m) => m.id)).toEqual([item.id]);

    const removed = await s.api.DELETE('/api/v2/sites/{siteName}/media/{id}', {
      params: { path: { ...site(), id: item.id } },
    });
    expect(removed.response.status).toBe(204);
    expect(await s.t.db.getRepository(MediaItemEntity).findOneBy({ id: item.id })).toBeNull();
  });

  it('called every Media operation through the client', () => {
    expect(s.contract.uncalled(['Media'])).toEqual([]);
  });
});
