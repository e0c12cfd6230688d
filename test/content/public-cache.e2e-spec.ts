import request from 'supertest';
import { eventually, startApp, TestApp } from '../support/app';
import { createTenant, Tenant } from '../support/tenant';
import { unannounced } from '../support/unannounced';
import { contentUrl, makeContent } from '../support/factories';
import { ChangeNotifications } from '../../src/database/change-notifications';

/**
 * The in-process read cache (CONTENT_CACHE_TTL_MS, docs/content.md): anonymous readers' and key
 * holders' reads, each under keys of their own. The TTL here is ten minutes, so anything fresh a
 * reader sees comes from the invalidation: the write's own, or the site-data trigger's NOTIFY.
 */
describe('content read cache', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startApp({ env: { CONTENT_CACHE_TTL_MS: '600000', RATE_LIMIT_PUBLIC_MAX: '100000' } });
    a = await createTenant(t);
    b = await createTenant(t);
  });
  afterAll(() => t.close());

  const titles = (res: { body: { data: Array<{ title: string }> } }) => res.body.data.map((c) => c.title);
  const anonList = async (tenant = a) => titles(await request(t.server).get(contentUrl(tenant)).expect(200));
  const keyList = async (tenant = a) => titles(await tenant.api.get(contentUrl(tenant)).expect(200));
  const anonGet = (slug: string, tenant = a) => request(t.server).get(contentUrl(tenant, `/${slug}`));

  it('serves anonymous and key reads from memory, each under its own key', async () => {
    const item = await makeContent(a, { title: 'Original', status: 'published' });
    const draft = await makeContent(a, { title: 'A draft' });
    expect((await anonGet(item.slug)).body.title).toBe('Original');
    expect((await a.api.get(contentUrl(a, `/${item.slug}`))).body.title).toBe('Original');
    expect((await anonList()).slice(0, 1)).toEqual(['Original']);
    expect((await keyList()).slice(0, 2)).toEqual(['A draft', 'Original']);
    const pages = (await a.api.get(`/v1/${a.siteName}/pages/2/0`).expect(200)).body;
    expect(pages.data.map((p: { title: string }) => p.title)).toEqual(['A draft', 'Original']);

    await unannounced(t.db, 'UPDATE content_items SET title = $1 WHERE id = ANY($2::bigint[])', [
      'Changed unannounced',
      [item.id, draft.id],
    ]);
    // Every read above is served again from memory: nobody told this instance.
    expect((await anonGet(item.slug)).body.title).toBe('Original');
    expect((await a.api.get(contentUrl(a, `/${item.slug}`))).body.title).toBe('Original');
    expect((await anonList()).slice(0, 1)).toEqual(['Original']);
    expect((await keyList()).slice(0, 2)).toEqual(['A draft', 'Original']);
    expect((await a.api.get(`/v1/${a.siteName}/pages/2/0`).expect(200)).body).toEqual(pages);
    // Any write to the site through this instance drops its entries, anonymous and keyed.
    await makeContent(a, { title: 'Unrelated draft' });
    expect((await anonGet(item.slug)).body.title).toBe('Changed unannounced');
    expect((await keyList()).slice(0, 3)).toEqual(['Unrelated draft', 'Changed unannounced', 'Changed unannounced']);
  });

  it("an operator's SQL is seen at the next request once its NOTIFY arrives (no write through the API)", async () => {
    const item = await makeContent(a, { title: 'Before SQL', status: 'published' });
    expect((await anonGet(item.slug)).body.title).toBe('Before SQL');
    expect((await keyList())[0]).toBe('Before SQL');
    const changedAt = Date.now();
    await t.db.query('UPDATE content_items SET title = $1 WHERE id = $2', ['After SQL', item.id]);
    const seenAfter = await eventually(
      async () => ((await anonGet(item.slug)).body.title === 'After SQL' ? Date.now() - changedAt : undefined),
      5000,
      5,
    );
    expect(seenAfter).toBeLessThan(1000);
    expect((await keyList())[0]).toBe('After SQL');
  });

  it('no draft reaches an anonymous reader and no row another site, whatever was read before', async () => {
    const draft = await makeContent(a, { title: 'Secret draft' });
    const published = await makeContent(a, { title: 'Public', status: 'published' });
    const theirs = await makeContent(b, { title: 'Site B item', status: 'published' });
    for (let round = 0; round < 2; round++) {
      // Key holders first, so anything they cached is there to leak.
      expect(await keyList()).toEqual(expect.arrayContaining(['Secret draft', 'Public']));
      expect((await a.api.get(contentUrl(a, `/${draft.slug}`))).status).toBe(200);
      expect((await a.api.get(contentUrl(a, `/${draft.id}`))).status).toBe(200);
      expect((await a.api.get(`/v1/${a.siteName}/pages/${draft.id}`)).status).toBe(200);

      const anon = await request(t.server).get(contentUrl(a)).expect(200);
      expect(anon.body.data.every((c: { status: string }) => c.status === 'published')).toBe(true);
      expect(titles(anon)).not.toContain('Secret draft');
      expect((await anonGet(draft.slug)).status).toBe(404);
      expect((await anonGet(String(draft.id))).status).toBe(404);
      expect((await request(t.server).get(contentUrl(a, '?status=draft'))).body.data ?? []).toEqual([]);

      // Site B, with its key and without, after site A's reads of every shape.
      for (const list of [await keyList(b), await anonList(b)]) {
        expect(list).toContain('Site B item');
        expect(list).not.toEqual(expect.arrayContaining(['Secret draft']));
        expect(list).not.toContain('Public');
      }
      expect((await anonGet(published.slug, b)).status).toBe(404);
      expect((await b.api.get(contentUrl(b, `/${draft.id}`))).status).toBe(404);
      expect((await b.api.get(`/v1/${b.siteName}/pages/${draft.id}`)).status).toBe(404);
      expect((await anonGet(theirs.slug, b)).body.title).toBe('Site B item');
    }
  });

  it('serves nothing from memory while the notification connection is down, and drops all when it is back', async () => {
    const item = await makeContent(a, { title: 'Before the outage', status: 'published' });
    expect((await anonGet(item.slug)).body.title).toBe('Before the outage');
    expect((await keyList())[0]).toBe('Before the outage');
    const notifications = t.app.get(ChangeNotifications);
    await t.db.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'sitebase-notifications'`,
    );
    await eventually(async () => (notifications.live ? undefined : true), 5000, 5);
    await unannounced(t.db, 'UPDATE content_items SET title = $1 WHERE id = $2', ['During the outage', item.id]);
    expect((await anonGet(item.slug)).body.title).toBe('During the outage');
    expect((await keyList())[0]).toBe('During the outage');
    await eventually(async () => (notifications.live ? true : undefined), 10000, 20);
    expect((await anonGet(item.slug)).body.title).toBe('During the outage');
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
