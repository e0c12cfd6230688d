import { CollectionEntity } from '../../src/collections/entities/collection.entity';
import { withClient } from '../support/api-client';

/** Every Collections operation through the generated client (docs/openapi.md). */
describe('generated client: collections', () => {
  const s = withClient(2);
  const site = () => ({ siteName: s.a.siteName });

  it('create, get, current, update, list', async () => {
    const created = await s.api.POST('/api/v2/sites/{siteName}/collections', {
      params: { path: site() },
      body: { name: 'Summer picks', pinned: true },
    });
    expect(created.response.status).toBe(201);
    const collection = created.data!;
    expect(collection).toEqual(expect.objectContaining({ name: 'Summer picks', slug: 'summer-picks', pinned: true }));
    expect(await s.t.db.getRepository(CollectionEntity).findOneBy({ id: collection.id })).toEqual(
      expect.objectContaining({ siteId: s.a.siteId, name: 'Summer picks', pinned: true }),
    );

    const one = await s.api.GET('/api/v2/sites/{siteName}/collections/{id}', {
      params: { path: { ...site(), id: collection.id } },
    });
    expect([one.response.status, one.data]).toEqual([200, collection]);
    const current = await s.contract.as().GET('/api/v2/sites/{siteName}/collections/current', {
      params: { path: site() },
    });
    expect([current.response.status, current.data?.id]).toEqual([200, collection.id]);

    const updated = await s.api.PATCH('/api/v2/sites/{siteName}/collections/{id}', {
      params: { path: { ...site(), id: collection.id } },
      body: { description: 'Reads for the beach' },
    });
    expect([updated.response.status, updated.data?.description]).toEqual([200, 'Reads for the beach']);
    expect(await s.t.db.getRepository(CollectionEntity).findOneByOrFail({ id: collection.id })).toEqual(
      expect.objectContaining({ description: 'Reads for the beach' }),
    );

    const list = await s.api.GET('/api/v2/sites/{siteName}/collections', { params: { path: site() } });
    expect([list.response.status, list.data!.data.map((c) => c.id)]).toEqual([200, [collection.id]]);
  });

  it('items: add, list, delete; the content must be of this site', async () => {
    const { data: collection } = await s.api.POST('/api/v2/sites/{siteName}/collections', {
      params: { path: site() },
      body: { name: 'With items' },
    });
    const { data: content } = await s.api.POST('/api/v2/sites/{siteName}/content', {
      params: { path: site() },
      body: { title: 'Collected' },
    });
    const path = { ...site(), id: collection!.id };
    const added = await s.api.POST('/api/v2/sites/{siteName}/collections/{id}/items', {
      params: { path },
      body: { contentId: content!.id },
    });
    expect(added.response.status).toBe(201);
    expect(added.data).toEqual(expect.objectContaining({ contentId: content!.id, position: 0 }));

    const items = await s.api.GET('/api/v2/sites/{siteName}/collections/{id}/items', { params: { path } });
    expect([items.response.status, items.data!.data.map((i) => i.content.title)]).toEqual([200, ['Collected']]);
    const rows = await s.t.db.query<Array<{ content_id: string }>>(
      'SELECT content_id FROM collection_items WHERE collection_id = $1',
      [collection!.id],
    );
    expect(rows.map((r) => Number(r.content_id))).toEqual([content!.id]);

    const { data: theirs } = await s.contract.as(s.b.key).POST('/api/v2/sites/{siteName}/content', {
      params: { path: { siteName: s.b.siteName } },
      body: { title: 'Not yours' },
    });
    const foreign = await s.api.POST('/api/v2/sites/{siteName}/collections/{id}/items', {
      params: { path },
      body: { contentId: theirs!.id },
    });
    expect(foreign.response.status).toBe(404);

    const removed = await s.api.DELETE('/api/v2/sites/{siteName}/collections/{id}/items/{itemId}', {
      params: { path: { ...path, itemId: content!.id } },
    });
    expect(removed.response.status).toBe(204);
    const left = await s.t.db.query('SELECT 1 FROM collection_items WHERE collection_id = $1', [collection!.id]);
    expect(left).toEqual([]);
  });

  it("delete, and another site's collection is a 404", async () => {
    const { data: collection } = await s.api.POST('/api/v2/sites/{siteName}/collections', {
      params: { path: site() },
      body: { name: 'Doomed' },
    });
    const theirs = await s.contract.as(s.b.key).GET('/api/v2/sites/{siteName}/collections/{id}', {
      params: { path: { siteName: s.b.siteName, id: collection!.id } },
    });
    expect([theirs.response.status, theirs.error?.code]).toEqual([404, 'not_found']);
    const removed = await s.api.DELETE('/api/v2/sites/{siteName}/collections/{id}', {
      params: { path: { ...site(), id: collection!.id } },
    });
    expect(removed.response.status).toBe(204);
    expect(await s.t.db.getRepository(CollectionEntity).findOneBy({ id: collection!.id })).toBeNull();
  });

  it('called every Collections operation through the client', () => {
    expect(s.contract.uncalled(['Collections'])).toEqual([]);
  });
});
