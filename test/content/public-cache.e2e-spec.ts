import request from 'supertest';
import { eventually, startApp, TestApp } from '../support/app';
import { createTenant, Tenant } from '../support/tenant';
import { contentUrl, makeContent } from '../support/factories';

/**
 * The in-process cache of anonymous reads (CONTENT_CACHE_TTL_MS). The TTL here is ten minutes,
 * so anything fresh that anonymous readers see comes from the invalidation on write.
 */
describe('public content cache', () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    t = await startApp({ env: { CONTENT_CACHE_TTL_MS: '600000', RATE_LIMIT_PUBLIC_MAX: '100000' } });
    a = await createTenant(t);
  });
  afterAll(() => t.close());

  const anonList = async () =>
    (await request(t.server).get(contentUrl(a)).expect(200)).body.data.map((c: { title: string }) => c.title);
  const anonGet = (slug: string) => request(t.server).get(contentUrl(a, `/${slug}`));

  it('serves anonymous reads from memory: a change behind its back stays unseen, keys read through', async () => {
    const item = await makeContent(a, { title: 'Original', status: 'published' });
    expect((await anonGet(item.slug)).body.title).toBe('Original');
    await t.db.query('UPDATE content_items SET title = $1 WHERE id = $2', ['Changed elsewhere', item.id]);
    expect((await anonGet(item.slug)).body.title).toBe('Original');
    expect((await a.api.get(contentUrl(a, `/${item.slug}`))).body.title).toBe('Changed elsewhere');
    // Any write to the site through this instance drops its entries.
    await makeContent(a, { title: 'Unrelated draft' });
    expect((await anonGet(item.slug)).body.title).toBe('Changed elsewhere');
  });

  it('shows creates, edits, unpublishing, deletes and restores at once', async () => {
    const first = await makeContent(a, { title: 'First', status: 'published' });
    const before = await anonList();
    expect(before[0]).toBe('First');

    await makeContent(a, { title: 'Second', status: 'published' });
    expect((await anonList()).slice(0, 2)).toEqual(['Second', 'First']);

    await a.api
      .patch(contentUrl(a, `/${first.id}`))
      .send({ title: 'First, edited' })
      .expect(200);
    expect((await anonGet(first.slug)).body.title).toBe('First, edited');

    const [, rev1] = (await a.api.get(contentUrl(a, `/${first.id}/revisions`))).body.data;
    await a.api.post(contentUrl(a, `/${first.id}/revisions/${rev1.id}/restore`)).expect(200);
    expect((await anonGet(first.slug)).body.title).toBe('First');

    await a.api.post(contentUrl(a, `/${first.id}/unpublish`)).expect(200);
    expect((await anonGet(first.slug)).status).toBe(404);
    expect(await anonList()).not.toContain('First');

    await a.api.delete(contentUrl(a, `/${first.id}`)).expect(204);
    expect((await anonGet(`${first.id}`)).status).toBe(404);
  });

  it('shows an item the scheduler publishes', async () => {
    const item = await makeContent(a, { title: 'Scheduled for the cache' });
    await a.api
      .post(contentUrl(a, `/${item.id}/publish`))
      .send({ publishAt: new Date(Date.now() + 1500).toISOString() })
      .expect(200);
    expect(await anonList()).not.toContain('Scheduled for the cache');
    await eventually(
      async () => ((await anonList()).includes('Scheduled for the cache') ? true : undefined),
      15000,
      250,
    );
  });
});
