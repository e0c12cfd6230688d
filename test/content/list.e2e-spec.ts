import request from 'supertest';
import { TestApp, startApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';
import { contentUrl, makeContent } from '../support/factories';

type Item = { id: number; slug: string; title: string; status: string };

describe('GET /api/v2/sites/:siteName/content', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  const items: Record<string, Item> = {};

  beforeAll(async () => {
    t = await startApp();
    a = await createTenant(t);
    b = await createTenant(t);
    const make = async (key: string, body: Record<string, unknown>) =>
      (items[key] = (await makeContent(a, body)) as unknown as Item);
    // Published in date order p1 (oldest) .. p4 (newest), created in another order.
    await make('p3', {
      title: 'Gardening in spring',
      type: 'post',
      status: 'published',
      publishedAt: '2025-03-01T00:00:00.000Z',
      tags: ['garden'],
      categories: ['home'],
      authors: [{ id: 1, name: 'Ann' }],
      content: '<p>Tulips and roses</p>',
    });
    await make('p1', {
      title: 'Welcome',
      type: 'page',
      status: 'published',
      publishedAt: '2025-01-01T00:00:00.000Z',
      authors: [{ id: 2, name: 'Bob' }],
    });
    await make('p4', {
      title: 'Roses for beginners',
      type: 'post',
      status: 'published',
      publishedAt: '2025-04-01T00:00:00.000Z',
      tags: ['garden', 'roses'],
      authors: [
        { id: 1, name: 'Ann' },
        { id: 2, name: 'Bob' },
      ],
      excerpt: 'Pruning and feeding',
    });
    await make('p2', {
      title: 'Cooking pasta',
      type: 'post',
      status: 'published',
      publishedAt: '2025-02-01T00:00:00.000Z',
      tags: ['food'],
      categories: ['home', 'kitchen'],
    });
    await make('d1', { title: 'Roses draft', type: 'post', tags: ['garden'] });
    await make('s1', { title: 'Roses later', type: 'post', publishAt: new Date(Date.now() + 3600_000).toISOString() });
    await make('a1', { title: 'Archived roses', type: 'post', status: 'archived', tags: ['garden'] });
    await makeContent(b, { title: 'Roses in site B', status: 'published', tags: ['garden'] });
  });
  afterAll(() => t.close());

  const slugsOf = (res: request.Response) => res.body.data.map((c: Item) => c.slug);
  const anon = (query = '') => request(t.server).get(contentUrl(a, query));
  const keyed = (query = '') => a.api.get(contentUrl(a, query));

  it('shows anonymous callers only published items, newest published first, as summaries', async () => {
    const res = await anon();
    expect(res.status).toBe(200);
    expect(slugsOf(res)).toEqual([items.p4.slug, items.p3.slug, items.p2.slug, items.p1.slug]);
    expect(res.body.pagination).toEqual({ limit: 20, nextCursor: null });
    expect(res.body.data[0]).toEqual({
      id: items.p4.id,
      type: 'post',
      title: 'Roses for beginners',
      slug: 'roses-for-beginners',
      format: 'html',
      excerpt: 'Pruning and feeding',
      status: 'published',
      publishAt: null,
      publishedAt: '2025-04-01T00:00:00.000Z',
      tags: ['garden', 'roses'],
      categories: [],
      authors: [
        { id: 1, name: 'Ann' },
        { id: 2, name: 'Bob' },
      ],
      template: '',
      thumbnail: '',
      description: '',
      customFields: {},
      attachmentIds: [],
      version: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it('never shows anonymous callers drafts, scheduled or archived items, whatever they ask', async () => {
    for (const status of ['draft', 'scheduled', 'archived']) {
      const res = await anon(`?status=${status}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
    }
    const search = await anon('?q=roses');
    expect(slugsOf(search)).toEqual([items.p4.slug, items.p3.slug]);
  });

  it('shows every status with a key, newest created first, and filters by status', async () => {
    const all = await keyed();
    expect(slugsOf(all)).toEqual(['a1', 's1', 'd1', 'p2', 'p4', 'p1', 'p3'].map((k) => items[k].slug));
    expect(slugsOf(await keyed('?status=draft'))).toEqual([items.d1.slug]);
    expect(slugsOf(await keyed('?status=scheduled'))).toEqual([items.s1.slug]);
    expect(slugsOf(await keyed('?status=published'))).toEqual(['p4', 'p3', 'p2', 'p1'].map((k) => items[k].slug));
  });

  it.each([
    ['type', '?type=page', ['p1']],
    ['tag', '?tag=garden', ['p4', 'p3']],
    ['category', '?category=home', ['p3', 'p2']],
    ['author', '?author=2', ['p4', 'p1']],
    ['text search in the body', '?q=tulips', ['p3']],
    ['text search with web syntax', '?q=roses -beginners', ['p3']],
    ['a date range', '?from=2025-02-01T00:00:00Z&to=2025-04-01T00:00:00Z', ['p3', 'p2']],
    ['several filters at once', '?tag=garden&author=1&q=pruning', ['p4']],
  ])('filters by %s', async (_label, query, keys) => {
    const res = await anon(query);
    expect(res.status).toBe(200);
    expect(slugsOf(res)).toEqual(keys.map((k) => items[k].slug));
  });

  it('finds drafts by text with a key', async () => {
    expect(slugsOf(await keyed('?q=roses&status=draft'))).toEqual([items.d1.slug]);
  });

  it('pages with a keyset cursor, without gaps or repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: request.Response = await anon(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...slugsOf(res));
      cursor = res.body.pagination.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(2);
    expect(seen).toEqual(['p4', 'p3', 'p2', 'p1'].map((k) => items[k].slug));
  });

  it('answers 400 naming the parameter for bad queries', async () => {
    for (const [query, path] of [
      ['?limit=0', 'limit'],
      ['?status=live', 'status'],
      ['?author=x', 'author'],
      ['?from=yesterday', 'from'],
      ['?sort=title', 'sort'],
      ['?type=Bad Type', 'type'],
    ]) {
      const res = await anon(query);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
    }
    expectProblem(await anon('?cursor=bm9wZQ'), 400, 'invalid_cursor');
  });

  it('answers 404 for an unknown site', async () => {
    expectProblem(await request(t.server).get('/api/v2/sites/no-such-site-here/content'), 404, 'site_not_found');
  });
});
