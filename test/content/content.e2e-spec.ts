import request from 'supertest';
import { ContentItemEntity } from '../../src/content/entities/content-item.entity';
import { TestApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { Tenant, withTenants } from '../support/tenant';
import { eventsOf, lastEventId } from '../support/events';
import { contentUrl, makeContent } from '../support/factories';
import { ISO } from '../support/matchers';

describe('content (v2)', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  const ctx = withTenants(2);
  beforeAll(() => {
    t = ctx.t;
    [a, b] = ctx.tenants;
  });

  const row = (id: number) => t.db.getRepository(ContentItemEntity).findOneBy({ id });

  describe('POST /api/v2/sites/:siteName/content', () => {
    it('creates a draft with every field, a Location, an ETag, revision 1 and an event', async () => {
      const since = await lastEventId(t);
      const res = await a.api.post(contentUrl(a)).send({
        type: 'page',
        title: 'About us',
        content: '# About',
        format: 'markdown',
        excerpt: 'Who we are',
        tags: ['team', 'company'],
        categories: ['info'],
        authors: [{ id: 7, name: 'Ada' }],
        template: 'wide',
        thumbnail: 'https://cdn.example.com/a.png',
        description: 'About the company',
        customFields: { hero: { color: 'red' } },
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        type: 'page',
        title: 'About us',
        slug: 'about-us',
        content: '# About',
        format: 'markdown',
        excerpt: 'Who we are',
        status: 'draft',
        publishAt: null,
        publishedAt: null,
        tags: ['team', 'company'],
        categories: ['info'],
        authors: [{ id: 7, name: 'Ada' }],
        template: 'wide',
        thumbnail: 'https://cdn.example.com/a.png',
        description: 'About the company',
        customFields: { hero: { color: 'red' } },
        attachmentIds: [],
        version: 1,
        createdAt: ISO,
        updatedAt: ISO,
      });
      expect(res.headers.location).toBe(
        `${t.configs.server.PUBLIC_BASE_URL}/api/v2/sites/${a.siteName}/content/${res.body.id}`,
      );
      expect(res.headers.etag).toBe(`"${res.body.id}-1"`);
      expect(await row(res.body.id)).toMatchObject({ siteId: a.siteId, slug: 'about-us', status: 'draft', version: 1 });
      const [rev] = await t.db.query(
        'SELECT number, action, actor_type, actor_id FROM content_revisions WHERE content_id = $1',
        [res.body.id],
      );
      expect(rev).toEqual({ number: 1, action: 'created', actor_type: 'key', actor_id: String(a.keyId) });
      expect(await eventsOf(t, a, since)).toEqual([
        {
          name: 'content.created',
          payload: { id: res.body.id, type: 'page', slug: 'about-us', status: 'draft', version: 1 },
        },
      ]);
    });

    it('creates published content: publishedAt now, and both events', async () => {
      const since = await lastEventId(t);
      const before = Date.now();
      const res = await a.api.post(contentUrl(a)).send({ title: 'Launch day', status: 'published' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ type: 'post', slug: 'launch-day', status: 'published', publishAt: null });
      expect(Date.parse(res.body.publishedAt)).toBeGreaterThanOrEqual(before - 5);
      expect((await eventsOf(t, a, since)).map((e) => e.name)).toEqual(['content.created', 'content.published']);
    });

    it('numbers generated slugs, applies the prefix, and never makes an all-digit slug', async () => {
      const first = await makeContent(a, { title: 'Same Title' });
      const second = await makeContent(a, { title: 'Same Title' });
      const prefixed = await makeContent(a, { title: 'Same Title', slugPrefix: 'news' });
      const digits = await makeContent(a, { title: '2026', type: 'post' });
      const japanese = await makeContent(a, { title: '日本語のページ', type: 'page' });
      expect([first.slug, second.slug, prefixed.slug, digits.slug]).toEqual([
        'same-title',
        'same-title-2',
        'news-same-title',
        'post-2026',
      ]);
      expect(japanese.slug).toMatch(/^page(-\d+)?$/);
    });

    it('takes an explicit slug, and answers 409 duplicate_slug when the site already has it', async () => {
      const item = await makeContent(a, { title: 'Mine', slug: 'taken-slug' });
      expect(item.slug).toBe('taken-slug');
      const res = await a.api.post(contentUrl(a)).send({ title: 'Other', slug: 'taken-slug' });
      expectProblem(res, 409, 'duplicate_slug');
      expect(await t.db.getRepository(ContentItemEntity).countBy({ siteId: a.siteId, title: 'Other' })).toBe(0);
    });

    it('lets two sites use the same slug', async () => {
      const inA = await makeContent(a, { title: 'Shared', slug: 'shared-slug', status: 'published' });
      const inB = await makeContent(b, { title: 'Shared in B', slug: 'shared-slug', status: 'published' });
      expect(inB.slug).toBe('shared-slug');
      expect((await request(t.server).get(contentUrl(a, '/shared-slug'))).body.id).toBe(inA.id);
      expect((await request(t.server).get(contentUrl(b, '/shared-slug'))).body.id).toBe(inB.id);
    });

    it.each([
      ['no title', {}, ['title']],
      ['a bad slug', { title: 'x', slug: 'Not A Slug' }, ['slug']],
      ['an all-digit slug', { title: 'x', slug: '123' }, ['slug']],
      ['an unknown field', { title: 'x', colour: 'red' }, ['colour']],
      ['a bad status', { title: 'x', status: 'live' }, ['status']],
      ['a null title', { title: null }, ['title']],
      ['a bad author', { title: 'x', authors: [{ id: 'x', name: '' }] }, ['authors.0.id', 'authors.0.name']],
      ['custom fields that are not an object', { title: 'x', customFields: [1] }, ['customFields']],
      ['a schedule without publishAt', { title: 'x', status: 'scheduled' }, ['publishAt']],
      ['a publishAt in the past', { title: 'x', publishAt: '2020-01-01T00:00:00Z' }, ['publishAt']],
      [
        'a future publishedAt',
        { title: 'x', status: 'published', publishedAt: '2099-01-01T00:00:00Z' },
        ['publishedAt'],
      ],
      ['a bad type', { title: 'x', type: 'Blog Post' }, ['type']],
    ])('rejects %s with a 400 naming the field', async (_label, body, paths) => {
      const res = await a.api.post(contentUrl(a)).send(body);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([...paths].sort());
    });

    it('needs a key (401) and a site of the key (404)', async () => {
      expectProblem(await request(t.server).post(contentUrl(a)).send({ title: 'x' }), 401, 'missing_credential');
      expectProblem(await b.api.post(contentUrl(a)).send({ title: 'x' }), 404, 'site_not_found');
      expect(await t.db.getRepository(ContentItemEntity).countBy({ title: 'x' })).toBe(0);
    });
  });

  describe('GET /api/v2/sites/:siteName/content/:id (id or slug)', () => {
    it('gets by id and by slug, with an ETag', async () => {
      const item = await makeContent(a, { title: 'Readable', content: '<p>Body</p>', status: 'published' });
      const byId = await request(t.server).get(contentUrl(a, `/${item.id}`));
      expect(byId.status).toBe(200);
      expect(byId.body).toEqual(item);
      expect(byId.headers.etag).toBe(`"${item.id}-1"`);
      const bySlug = await request(t.server).get(contentUrl(a, '/readable'));
      expect(bySlug.status).toBe(200);
      expect(bySlug.body).toEqual(item);
    });

    it('hides drafts from anonymous callers, shows them with a key', async () => {
      const draft = await makeContent(a, { title: 'Secret draft' });
      expectProblem(await request(t.server).get(contentUrl(a, `/${draft.id}`)), 404, 'not_found');
      expectProblem(await request(t.server).get(contentUrl(a, `/${draft.slug}`)), 404, 'not_found');
      const withKey = await a.api.get(contentUrl(a, `/${draft.id}`));
      expect(withKey.status).toBe(200);
      expect(withKey.body.status).toBe('draft');
    });

    it("answers 404 for another site's id; another account's key reads like anonymous", async () => {
      const item = await makeContent(a, { title: 'Only in A', status: 'published' });
      const draft = await makeContent(a, { title: 'Draft only in A' });
      expectProblem(await b.api.get(contentUrl(b, `/${item.id}`)), 404, 'not_found');
      expect((await b.api.get(contentUrl(a, `/${item.id}`))).status).toBe(200);
      expectProblem(await b.api.get(contentUrl(a, `/${draft.id}`)), 404, 'not_found');
      expectProblem(await request(t.server).get(contentUrl(a, '/99999999999999999999')), 404, 'not_found');
    });
  });

  describe('PATCH /api/v2/sites/:siteName/content/:id', () => {
    it('updates the given fields, bumps the version and ETag, and writes a revision and an event', async () => {
      const item = await makeContent(a, { title: 'Before', tags: ['a'] });
      const since = await lastEventId(t);
      const res = await a.api
        .patch(contentUrl(a, `/${item.id}`))
        .set('If-Match', `"${item.id}-1"`)
        .send({ title: 'After', tags: ['b', 'c'], customFields: { n: 1 } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...item,
        title: 'After',
        tags: ['b', 'c'],
        customFields: { n: 1 },
        version: 2,
        updatedAt: ISO,
      });
      expect(res.body.slug).toBe(item.slug); // slugs stay when the title changes
      expect(res.headers.etag).toBe(`"${item.id}-2"`);
      expect(await row(item.id)).toMatchObject({ title: 'After', tags: ['b', 'c'], version: 2 });
      const revs = await t.db.query(
        'SELECT number, action FROM content_revisions WHERE content_id = $1 ORDER BY number',
        [item.id],
      );
      expect(revs).toEqual([
        { number: 1, action: 'created' },
        { number: 2, action: 'updated' },
      ]);
      expect(await eventsOf(t, a, since)).toEqual([
        {
          name: 'content.updated',
          payload: { id: item.id, type: 'post', slug: item.slug, status: 'draft', version: 2 },
        },
      ]);
    });

    it('answers 412 for a stale If-Match and changes nothing', async () => {
      const item = await makeContent(a, { title: 'Contested' });
      await a.api
        .patch(contentUrl(a, `/${item.id}`))
        .send({ title: 'First editor' })
        .expect(200);
      const res = await a.api
        .patch(contentUrl(a, `/${item.id}`))
        .set('If-Match', `"${item.id}-1"`)
        .send({ title: 'Second editor' });
      expectProblem(res, 412, 'precondition_failed');
      expect(await row(item.id)).toMatchObject({ title: 'First editor', version: 2 });
    });

    it('writes nothing for an update that changes nothing', async () => {
      const item = await makeContent(a, { title: 'Stable' });
      const res = await a.api.patch(contentUrl(a, `/${item.id}`)).send({ title: 'Stable', status: 'draft' });
      expect(res.status).toBe(200);
      expect(res.body.version).toBe(1);
      expect(
        await t.db.query('SELECT count(*)::int AS n FROM content_revisions WHERE content_id = $1', [item.id]),
      ).toEqual([{ n: 1 }]);
    });

    it('changes the slug, refusing one the site already has', async () => {
      const other = await makeContent(a, { title: 'Holder of slug' });
      const item = await makeContent(a, { title: 'Renamed' });
      const ok = await a.api.patch(contentUrl(a, `/${item.id}`)).send({ slug: 'renamed-slug' });
      expect(ok.body.slug).toBe('renamed-slug');
      expectProblem(await a.api.patch(contentUrl(a, `/${item.id}`)).send({ slug: other.slug }), 409, 'duplicate_slug');
      expect((await row(item.id))!.slug).toBe('renamed-slug');
    });

    it('archives through status, and then refuses any other status with a 409 (row unchanged)', async () => {
      const item = await makeContent(a, { title: 'Old news', status: 'published' });
      const since = await lastEventId(t);
      const archived = await a.api.patch(contentUrl(a, `/${item.id}`)).send({ status: 'archived' });
      expect(archived.body).toMatchObject({ status: 'archived', version: 2 });
      expect((await eventsOf(t, a, since)).map((e) => e.name)).toEqual(['content.updated', 'content.unpublished']);
      const res = await a.api.patch(contentUrl(a, `/${item.id}`)).send({ status: 'draft', title: 'Revived' });
      expectProblem(res, 409, 'transition_forbidden');
      expect(await row(item.id)).toMatchObject({ status: 'archived', title: 'Old news', version: 2 });
    });

    it('answers 400 with paths for a bad body, 401 without a key, 404 for another site', async () => {
      const item = await makeContent(a, { title: 'Guarded' });
      const bad = await a.api.patch(contentUrl(a, `/${item.id}`)).send({ title: '', tags: 'x' });
      expectProblem(bad, 400, 'validation_failed');
      expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['tags', 'title']);
      expectProblem(
        await request(t.server)
          .patch(contentUrl(a, `/${item.id}`))
          .send({ title: 'x' }),
        401,
        'missing_credential',
      );
      expectProblem(await b.api.patch(contentUrl(b, `/${item.id}`)).send({ title: 'x' }), 404, 'not_found');
      expectProblem(await a.api.patch(contentUrl(a, '/abc')).send({ title: 'x' }), 400, 'validation_failed');
      expect(await row(item.id)).toMatchObject({ title: 'Guarded', version: 1 });
    });
  });

  describe('DELETE /api/v2/sites/:siteName/content/:id', () => {
    it('deletes the item and its revisions, with an event', async () => {
      const item = await makeContent(a, { title: 'Doomed' });
      const since = await lastEventId(t);
      const res = await a.api.delete(contentUrl(a, `/${item.id}`));
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(await row(item.id)).toBeNull();
      expect(
        await t.db.query('SELECT count(*)::int AS n FROM content_revisions WHERE content_id = $1', [item.id]),
      ).toEqual([{ n: 0 }]);
      expect(await eventsOf(t, a, since)).toEqual([
        { name: 'content.deleted', payload: { id: item.id, type: 'post', slug: 'doomed' } },
      ]);
      expectProblem(await a.api.delete(contentUrl(a, `/${item.id}`)), 404, 'not_found');
    });

    it("answers 404 for another site's item and 401 without a key, deleting nothing", async () => {
      const item = await makeContent(a, { title: 'Survivor' });
      expectProblem(await b.api.delete(contentUrl(b, `/${item.id}`)), 404, 'not_found');
      expectProblem(await request(t.server).delete(contentUrl(a, `/${item.id}`)), 401, 'missing_credential');
      expect(await row(item.id)).not.toBeNull();
    });
  });
});
