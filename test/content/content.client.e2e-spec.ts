import { ContentItemEntity } from '../../src/content/entities/content-item.entity';
import { withClient } from '../support/api-client';
import { ISO } from '../support/matchers';

/** Every Content operation through the generated client (docs/openapi.md). */
describe('generated client: content', () => {
  const s = withClient(2);
  const site = () => ({ siteName: s.a.siteName });
  const row = (id: number) => s.t.db.getRepository(ContentItemEntity).findOneByOrFail({ id });

  it('create, get by id and by slug, update with If-Match, list with a filter', async () => {
    const created = await s.api.POST('/api/v2/sites/{siteName}/content', {
      params: { path: site() },
      body: { title: 'Typed hello', type: 'post', tags: ['typed'], content: '<p>Hi</p>' },
    });
    expect(created.response.status).toBe(201);
    const item = created.data!;
    expect(item).toEqual(
      expect.objectContaining({ title: 'Typed hello', slug: 'typed-hello', status: 'draft', tags: ['typed'] }),
    );
    expect(created.response.headers.get('location')).toMatch(new RegExp(`/content/${item.id}$`));
    expect(await row(item.id)).toEqual(expect.objectContaining({ siteId: s.a.siteId, title: 'Typed hello' }));

    const byId = await s.api.GET('/api/v2/sites/{siteName}/content/{id}', {
      params: { path: { ...site(), id: String(item.id) } },
    });
    const bySlug = await s.api.GET('/api/v2/sites/{siteName}/content/{id}', {
      params: { path: { ...site(), id: 'typed-hello' } },
    });
    expect([byId.response.status, bySlug.response.status]).toEqual([200, 200]);
    expect(bySlug.data).toEqual(byId.data);
    const etag = byId.response.headers.get('etag')!;

    const updated = await s.api.PATCH('/api/v2/sites/{siteName}/content/{id}', {
      params: { path: { ...site(), id: item.id }, header: { 'If-Match': etag } },
      body: { excerpt: 'Short' },
    });
    expect([updated.response.status, updated.data?.excerpt, updated.data?.version]).toEqual([200, 'Short', 2]);
    expect(await row(item.id)).toEqual(expect.objectContaining({ excerpt: 'Short', version: 2 }));
    const stale = await s.api.PATCH('/api/v2/sites/{siteName}/content/{id}', {
      params: { path: { ...site(), id: item.id }, header: { 'If-Match': etag } },
      body: { excerpt: 'Lost' },
    });
    expect([stale.response.status, stale.error?.code]).toEqual([412, 'precondition_failed']);

    const list = await s.api.GET('/api/v2/sites/{siteName}/content', {
      params: { path: site(), query: { tag: 'typed', limit: 10 } },
    });
    expect(list.response.status).toBe(200);
    expect(list.data!.data.map((c) => c.id)).toEqual([item.id]);
  });

  it('publish, unpublish, and a bad transition is a 409', async () => {
    const { data: item } = await s.api.POST('/api/v2/sites/{siteName}/content', {
      params: { path: site() },
      body: { title: 'To publish' },
    });
    const id = item!.id;
    const published = await s.api.POST('/api/v2/sites/{siteName}/content/{id}/publish', {
      params: { path: { ...site(), id } },
      body: {},
    });
    expect([published.response.status, published.data?.status, published.data?.publishedAt]).toEqual([
      200,
      'published',
      ISO,
    ]);
    // Anonymous readers see it now.
    const anonymous = await s.contract.as().GET('/api/v2/sites/{siteName}/content', {
      params: { path: site(), query: { limit: 100 } },
    });
    expect(anonymous.data!.data.map((c) => c.id)).toContain(id);
    const again = await s.api.POST('/api/v2/sites/{siteName}/content/{id}/publish', {
      params: { path: { ...site(), id } },
      body: {},
    });
    expect([again.response.status, again.error?.code]).toEqual([409, 'transition_forbidden']);

    const unpublished = await s.api.POST('/api/v2/sites/{siteName}/content/{id}/unpublish', {
      params: { path: { ...site(), id } },
    });
    expect([unpublished.response.status, unpublished.data?.status]).toEqual([200, 'draft']);
    expect((await row(id)).status).toBe('draft');
  });

  it('revisions: list, get, restore', async () => {
    const { data: item } = await s.api.POST('/api/v2/sites/{siteName}/content', {
      params: { path: site() },
      body: { title: 'First title' },
    });
    const id = item!.id;
    await s.api.PATCH('/api/v2/sites/{siteName}/content/{id}', {
      params: { path: { ...site(), id } },
      body: { title: 'Second title' },
    });
    const revisions = await s.api.GET('/api/v2/sites/{siteName}/content/{id}/revisions', {
      params: { path: { ...site(), id } },
    });
    expect(revisions.response.status).toBe(200);
    const [latest, first] = revisions.data!.data;
    expect([latest.number, first.number]).toEqual([2, 1]);

    const one = await s.api.GET('/api/v2/sites/{siteName}/content/{id}/revisions/{revisionId}', {
      params: { path: { ...site(), id, revisionId: first.id } },
    });
    expect([one.response.status, one.data?.snapshot.title]).toEqual([200, 'First title']);

    const restored = await s.api.POST('/api/v2/sites/{siteName}/content/{id}/revisions/{revisionId}/restore', {
      params: { path: { ...site(), id, revisionId: first.id } },
    });
    expect([restored.response.status, restored.data?.title]).toEqual([200, 'First title']);
    expect((await row(id)).title).toBe('First title');
  });

  it("delete, and another site's item is a 404", async () => {
    const { data: item } = await s.api.POST('/api/v2/sites/{siteName}/content', {
      params: { path: site() },
      body: { title: 'Doomed' },
    });
    const theirs = await s.contract.as(s.b.key).DELETE('/api/v2/sites/{siteName}/content/{id}', {
      params: { path: { siteName: s.b.siteName, id: item!.id } },
    });
    expect([theirs.response.status, theirs.error?.code]).toEqual([404, 'not_found']);
    const removed = await s.api.DELETE('/api/v2/sites/{siteName}/content/{id}', {
      params: { path: { ...site(), id: item!.id } },
    });
    expect(removed.response.status).toBe(204);
    expect(await s.t.db.getRepository(ContentItemEntity).findOneBy({ id: item!.id })).toBeNull();
  });

  it('called every Content operation through the client', () => {
    expect(s.contract.uncalled(['Content'])).toEqual([]);
  });
});
