import request from 'supertest';
import { ContentItemEntity } from '../../src/content/entities/content-item.entity';
import { startApp, TestApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';
import { eventsOf, lastEventId } from '../support/events';
import { makePng, tempMediaDir } from '../support/files';
import { ISO } from '../support/matchers';

const BASE = 'http://media.test';

describe('v1 pages', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  const mediaDir = tempMediaDir('v1-pages');

  beforeAll(async () => {
    t = await startApp({ env: { MEDIA_LOCAL_DIR: mediaDir.dir, PUBLIC_BASE_URL: BASE } });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(async () => {
    await t.close();
    mediaDir.remove();
  });

  const pages = (tenant: Tenant, rest = '') => `/v1/${tenant.siteName}/pages${rest}`;
  const row = (id: number) => t.db.getRepository(ContentItemEntity).findOneBy({ id });
  const create = async (tenant: Tenant, body: Record<string, unknown>) => {
    const res = await tenant.api.post(pages(tenant)).send({ content: '', page_type: 'page', ...body });
    if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { page_id: number; slug: string } & Record<string, unknown>;
  };
  const upload = async (tenant: Tenant, name: string): Promise<number> => {
    const res = await tenant.api
      .post(`/api/v2/sites/${tenant.siteName}/media`)
      .attach('file', await makePng(20, 10), name);
    expect(res.status).toBe(201);
    return res.body.id;
  };

  describe('POST /v1/:site_name/pages', () => {
    it('creates with the current naming: 200 and the page object with its media', async () => {
      const mediaId = await upload(a, 'cover.png');
      const since = await lastEventId(t);
      const res = await a.api.post(pages(a)).send({
        title: 'About Us',
        content: '<p>We</p>',
        excerpt: 'Short',
        page_type: 'page',
        page_status: 'published',
        date: '2024-02-03T04:05:06.000Z',
        tags: ['team'],
        categories: ['company'],
        author: [{ id: 3, name: 'Cy' }],
        custom: { hero: true },
        template: 'wide',
        thumbnail: 'https://cdn.example.com/t.png',
        description: 'Meta',
        slug_prefix: 'info',
        attachment_ids: [mediaId],
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        page_id: expect.any(Number),
        title: 'About Us',
        content: '<p>We</p>',
        post_excerpt: 'Short',
        slug: 'info-about-us',
        page_type: 'page',
        page_status: 'published',
        date: '2024-02-03T04:05:06.000Z',
        page_modified: ISO,
        tags: ['team'],
        categories: ['company'],
        author: [{ id: 3, name: 'Cy' }],
        template: 'wide',
        thumbnail: 'https://cdn.example.com/t.png',
        description: 'Meta',
        media: [
          {
            media_id: mediaId,
            attachment_id: mediaId,
            site_name: a.siteName,
            title: expect.any(String),
            caption: '',
            description: '',
            file_name: 'cover.png',
            content_type: 'image/png',
            link: expect.stringMatching(/^http:\/\/media\.test\/files\//),
            original_url: expect.stringMatching(/^http:\/\/media\.test\/files\//),
            size: '20x10',
            width: 20,
            height: 10,
            filesize: expect.any(Number),
            media_date: ISO,
            is_original: true,
            is_thumbnail: false,
          },
        ],
      });
      expect(await row(res.body.page_id)).toMatchObject({
        siteId: a.siteId,
        type: 'page',
        status: 'published',
        customFields: { hero: true },
        attachmentIds: [mediaId],
        publishedAt: new Date('2024-02-03T04:05:06.000Z'),
      });
      expect((await eventsOf(t, a, since)).map((e) => e.name)).toEqual(['content.created', 'content.published']);
    });

    it('creates with the older naming (post_title, post_content, post_type, post_excerpt, post_status, post_date)', async () => {
      const res = await a.api.post(pages(a)).send({
        post_title: 'Old School',
        post_content: 'Body',
        post_type: 'post',
        post_excerpt: 'Ex',
        post_status: 'draft',
        post_date: '2023-01-01T00:00:00.000Z',
        tags: ['legacy'],
        slug: 'Old School Slug',
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          title: 'Old School',
          content: 'Body',
          post_excerpt: 'Ex',
          slug: 'old-school-slug',
          page_type: 'post',
          page_status: 'draft',
          date: '2023-01-01T00:00:00.000Z',
          tags: ['legacy'],
          media: [],
        }),
      );
      expect(await row(res.body.page_id)).toMatchObject({
        title: 'Old School',
        type: 'post',
        status: 'draft',
        excerpt: 'Ex',
      });
    });

    it('defaults to a draft dated by its creation, and takes a minimal body', async () => {
      const res = await a.api.post(pages(a)).send({ title: 'Minimal', content: 'x', page_type: 'post' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ page_status: 'draft', post_excerpt: '', slug: 'minimal' });
      expect(res.body.date).toBe(res.body.page_modified);
    });

    it('schedules with page_status scheduled and a future date', async () => {
      const date = new Date(Date.now() + 3600_000).toISOString();
      const res = await a.api
        .post(pages(a))
        .send({ title: 'Later', content: 'x', page_type: 'post', page_status: 'scheduled', date });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ page_status: 'scheduled', date });
      expect(await row(res.body.page_id)).toMatchObject({ status: 'scheduled', publishAt: new Date(date) });
    });

    it.each([
      ['nothing', {}, ['content', 'page_type', 'title']],
      ['conflicting names', { title: 'A', post_title: 'B', content: 'x', page_type: 'post' }, ['post_title']],
      ['an unknown field', { title: 'A', content: 'x', page_type: 'post', colour: 1 }, ['colour']],
      ['a bad status', { title: 'A', content: 'x', page_type: 'post', page_status: 'live' }, ['page_status']],
      [
        'a future date without scheduling',
        { title: 'A', content: 'x', page_type: 'post', date: '2099-01-01T00:00:00Z' },
        ['date'],
      ],
      [
        'a schedule without a date',
        { title: 'A', content: 'x', page_type: 'post', page_status: 'scheduled' },
        ['date'],
      ],
      [
        'bad attachment ids',
        { title: 'A', content: 'x', page_type: 'post', attachment_ids: ['x'] },
        ['attachment_ids'],
      ],
    ])('answers 400 for %s, naming the v1 fields', async (_label, body, paths) => {
      const res = await a.api.post(pages(a)).send(body);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(paths);
      expect(await t.db.getRepository(ContentItemEntity).countBy({ siteId: a.siteId, title: 'A' })).toBe(0);
    });

    it("answers 400 on attachment_ids for another site's media", async () => {
      const theirs = await upload(b, 'theirs.png');
      const res = await a.api
        .post(pages(a))
        .send({ title: 'Borrow', content: 'x', page_type: 'post', attachment_ids: [theirs] });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([
        { path: 'attachment_ids', message: `media ${theirs} does not exist in this site` },
      ]);
    });

    it('answers 401 without a key and 404 for a site of another account', async () => {
      expectProblem(
        await request(t.server).post(pages(a)).send({ title: 'x', content: 'x', page_type: 'post' }),
        401,
        'missing_api_key',
      );
      expectProblem(
        await b.api.post(pages(a)).send({ title: 'x', content: 'x', page_type: 'post' }),
        404,
        'site_not_found',
      );
    });
  });

  describe('GET /v1/:site_name/pages/:page', () => {
    it('gets a page by id and by slug, drafts included', async () => {
      const page = await create(a, { title: 'Findable', page_status: 'draft' });
      const byId = await a.api.get(pages(a, `/${page.page_id}`));
      expect(byId.status).toBe(200);
      expect(byId.body).toEqual(page);
      const bySlug = await a.api.get(pages(a, `/${page.slug}`));
      expect(bySlug.status).toBe(200);
      expect(bySlug.body).toEqual(page);
    });

    it('answers `all` with every page of the site as an array', async () => {
      const site = await createTenant(t);
      const first = await create(site, { title: 'First' });
      const second = await create(site, { title: 'Second', page_status: 'published' });
      const res = await site.api.get(pages(site, '/all'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual([second, first]);
    });

    it("answers 404 for another site's page and for an unknown slug, 401 without a key", async () => {
      const page = await create(a, { title: 'Mine only' });
      expectProblem(await b.api.get(pages(b, `/${page.page_id}`)), 404, 'not_found');
      expectProblem(await a.api.get(pages(a, '/no-such-page')), 404, 'not_found');
      expectProblem(await request(t.server).get(pages(a, `/${page.page_id}`)), 401, 'missing_api_key');
    });
  });

  describe('GET /v1/:site_name/pages/:limit/:offset', () => {
    it('pages newest first with the total', async () => {
      const site = await createTenant(t);
      const made = [];
      for (const title of ['P1', 'P2', 'P3']) made.push(await create(site, { title }));
      const res = await site.api.get(pages(site, '/2/1'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: [made[1], made[0]], total: 3, limit: 2, offset: 1 });
      expect((await site.api.get(pages(site, '/10/5'))).body).toEqual({ data: [], total: 3, limit: 10, offset: 5 });
    });

    it("the total is the site's own count, kept through creates and deletes (content_counts), never another site's", async () => {
      const [x, y] = [await createTenant(t), await createTenant(t)];
      expect((await x.api.get(pages(x, '/10/0'))).body).toEqual({ data: [], total: 0, limit: 10, offset: 0 });
      const mine = [];
      for (const title of ['X1', 'X2', 'X3']) mine.push(await create(x, { title }));
      for (const title of ['Y1', 'Y2']) await create(y, { title });
      expect((await x.api.delete(pages(x, `/${mine[1].page_id}`))).status).toBe(200);
      expect((await x.api.get(pages(x, '/1/0'))).body).toEqual({ data: [mine[2]], total: 2, limit: 1, offset: 0 });
      expect((await x.api.get(pages(x, '/10/9'))).body).toEqual({ data: [], total: 2, limit: 10, offset: 9 });
      expect((await y.api.get(pages(y, '/1/0'))).body.total).toBe(2);
      const counted = await t.db.query(
        `SELECT c.site_id::int AS site, c.items::int AS items, (SELECT count(*)::int FROM content_items i WHERE i.site_id = c.site_id) AS rows
           FROM content_counts c WHERE c.site_id = ANY($1::bigint[]) ORDER BY c.site_id`,
        [[x.siteId, y.siteId]],
      );
      expect(counted).toEqual([
        { site: x.siteId, items: 2, rows: 2 },
        { site: y.siteId, items: 2, rows: 2 },
      ]);
    });

    it.each([
      ['/0/0', 'limit'],
      ['/101/0', 'limit'],
      ['/10/-1', 'offset'],
      ['/x/0', 'limit'],
    ])('answers 400 for %s', async (path, field) => {
      const res = await a.api.get(pages(a, path));
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([field]);
    });
  });

  describe('PUT /v1/:site_name/pages/:page_id', () => {
    it('edits with either naming and answers the page object', async () => {
      const page = await create(a, { title: 'Editable', tags: ['x'] });
      const res = await a.api
        .put(pages(a, `/${page.page_id}`))
        .send({ post_title: 'Edited', excerpt: 'New excerpt', page_status: 'published' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...page,
        title: 'Edited',
        post_excerpt: 'New excerpt',
        page_status: 'published',
        date: ISO,
        page_modified: ISO,
      });
      expect(await row(page.page_id)).toMatchObject({
        title: 'Edited',
        excerpt: 'New excerpt',
        status: 'published',
        version: 2,
      });
    });

    it('adds attachments by default and replaces them with replace_attachments', async () => {
      const [m1, m2, m3] = [await upload(a, 'a.png'), await upload(a, 'b.png'), await upload(a, 'c.png')];
      const page = await create(a, { title: 'With media', attachment_ids: [m1] });
      const added = await a.api.put(pages(a, `/${page.page_id}`)).send({ attachment_ids: [m2] });
      expect(added.body.media.map((m: { media_id: number }) => m.media_id)).toEqual([m1, m2]);
      const replaced = await a.api
        .put(pages(a, `/${page.page_id}`))
        .send({ attachment_ids: [m3], replace_attachments: true });
      expect(replaced.body.media.map((m: { media_id: number }) => m.media_id)).toEqual([m3]);
      expect((await row(page.page_id))!.attachmentIds).toEqual([m3]);
    });

    it('regenerates the slug from the title with a new slug_prefix; refuses a slug', async () => {
      const page = await create(a, { title: 'Prefixed page' });
      const res = await a.api.put(pages(a, `/${page.page_id}`)).send({ slug_prefix: 'docs' });
      expect(res.body.slug).toBe('docs-prefixed-page');
      const slug = await a.api.put(pages(a, `/${page.page_id}`)).send({ slug: 'manual' });
      expectProblem(slug, 400, 'validation_failed');
      expect(slug.body.errors).toEqual([{ path: 'slug', message: 'is not allowed' }]);
    });

    it('answers 409 for a forbidden transition (row unchanged), 404 for another site, 401 without a key', async () => {
      const page = await create(a, { title: 'Archived page', page_status: 'archived' });
      expectProblem(
        await a.api.put(pages(a, `/${page.page_id}`)).send({ page_status: 'published', title: 'Back' }),
        409,
        'transition_forbidden',
      );
      expect(await row(page.page_id)).toMatchObject({ status: 'archived', title: 'Archived page', version: 1 });
      expectProblem(await b.api.put(pages(b, `/${page.page_id}`)).send({ title: 'x' }), 404, 'not_found');
      expectProblem(
        await request(t.server)
          .put(pages(a, `/${page.page_id}`))
          .send({ title: 'x' }),
        401,
        'missing_api_key',
      );
    });
  });

  describe('DELETE /v1/:site_name/pages/:page_id', () => {
    it('answers 200 { deleted: true, page_id } and removes the page', async () => {
      const page = await create(a, { title: 'Temporary' });
      expectProblem(await b.api.delete(pages(b, `/${page.page_id}`)), 404, 'not_found');
      const res = await a.api.delete(pages(a, `/${page.page_id}`));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: true, page_id: page.page_id });
      expect(await row(page.page_id)).toBeNull();
      expectProblem(await a.api.delete(pages(a, `/${page.page_id}`)), 404, 'not_found');
      expectProblem(await a.api.delete(pages(a, '/abc')), 400, 'validation_failed');
    });
  });
});
