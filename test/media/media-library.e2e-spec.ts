import { existsSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { OutboxEventEntity } from '../../src/common/outbox/outbox-event.entity';
import { ValidationProblem } from '../../src/common/errors/problems';
import { MediaItemEntity } from '../../src/media/entities/media-item.entity';
import { MediaService } from '../../src/media/media.service';
import {
  MediaItemCategoryEntity,
  MediaItemTagEntity,
  MediaCategoryEntity,
} from '../../src/media/entities/media-term.entity';
import { startApp, TestApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';
import { filesUnder, makePdf, makePng, tempMediaDir } from '../support/files';
import { ISO } from '../support/matchers';

describe('media library (list, get, PATCH, DELETE, categories, tags)', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  const media = tempMediaDir('library');
  const base = () => `/api/v2/sites/${a.siteName}/media`;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    t = await startApp({ env: { MEDIA_LOCAL_DIR: media.dir, MEDIA_THUMBNAIL_WIDTHS: '16' } });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
    // Oldest first: harbour.png (+ one thumbnail), menu.pdf, sunset.png (+ one), notes.pdf.
    for (const [name, title] of [
      ['harbour.png', 'Harbour at dawn'],
      ['menu.pdf', 'Lunch menu'],
      ['sunset.png', 'Sunset'],
      ['notes.pdf', ''],
    ]) {
      const file = name.endsWith('.png') ? await makePng(40, 20) : makePdf(name);
      const req = a.api.post(base()).attach('file', file, name);
      const res = await (title ? req.field('title', title) : req);
      expect(res.status).toBe(201);
      ids[name] = res.body.id;
    }
    const other = await b.api.post(`/api/v2/sites/${b.siteName}/media`).attach('file', makePdf(), 'other.pdf');
    ids.other = other.body.id;
  });
  afterAll(async () => {
    try {
      await t?.close();
    } finally {
      media.remove();
    }
  });

  const titles = (res: request.Response) =>
    res.body.data.map((m: { title: string; isThumbnail: boolean }) => (m.isThumbnail ? `${m.title} (thumb)` : m.title));

  describe('GET /api/v2/sites/:siteName/media', () => {
    it('lists newest first, thumbnails included unless original=true', async () => {
      const all = await a.api.get(base());
      expect(all.status).toBe(200);
      expect(titles(all)).toEqual([
        'notes',
        'Sunset (thumb)',
        'Sunset',
        'Lunch menu',
        'Harbour at dawn (thumb)',
        'Harbour at dawn',
      ]);
      expect(all.body.pagination).toEqual({ limit: 20, nextCursor: null });
      const originals = await a.api.get(`${base()}?original=true`);
      expect(titles(originals)).toEqual(['notes', 'Sunset', 'Lunch menu', 'Harbour at dawn']);
      const thumbs = await a.api.get(`${base()}?original=false`);
      expect(titles(thumbs)).toEqual(['Sunset (thumb)', 'Harbour at dawn (thumb)']);
    });

    it('pages with a keyset cursor without gaps or repeats', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: request.Response = await a.api.get(
          `${base()}?original=true&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(res.status).toBe(200);
        seen.push(...titles(res));
        cursor = res.body.pagination.nextCursor;
        pages++;
      } while (cursor);
      expect({ pages, seen }).toEqual({ pages: 2, seen: ['notes', 'Sunset', 'Lunch menu', 'Harbour at dawn'] });
    });

    it('filters by content type, family and text', async () => {
      expect(titles(await a.api.get(`${base()}?contentType=application/pdf`))).toEqual(['notes', 'Lunch menu']);
      expect(titles(await a.api.get(`${base()}?contentType=image/*&original=true`))).toEqual([
        'Sunset',
        'Harbour at dawn',
      ]);
      expect(titles(await a.api.get(`${base()}?q=HARBOUR&original=true`))).toEqual(['Harbour at dawn']);
      expect(titles(await a.api.get(`${base()}?q=notes.p`))).toEqual(['notes']); // file name
      expect(titles(await a.api.get(`${base()}?q=100%25`))).toEqual([]); // % is literal
    });

    it('rejects bad filters with 400 naming them', async () => {
      for (const [query, path] of [
        ['contentType=png', 'contentType'],
        ['original=maybe', 'original'],
        ['limit=0', 'limit'],
        ['category=Bad Slug', 'category'],
        ['sort=name', 'sort'],
      ]) {
        const res = await a.api.get(`${base()}?${query}`);
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
      }
      expectProblem(await a.api.get(`${base()}?cursor=bm9wZQ`), 400, 'invalid_cursor');
    });

    it('a NUL character in a search or a name is a 400, not a 500', async () => {
      expectProblem(await a.api.get(`${base()}?q=%00`), 400, 'invalid_value');
      // A JSON body with a NUL is refused before it reaches a handler, naming the field.
      const tag = await a.api.post(`${base()}/tags`).send({ name: 'a\u0000b', slug: 'nul' });
      expectProblem(tag, 400, 'validation_failed');
      expect(tag.body.errors.map((e: { path: string }) => e.path)).toEqual(['name']);
      // The row fails after the file was stored: the file goes again.
      const files = filesUnder(media.dir);
      expectProblem(
        await a.api.post(base()).field('title', 'a\u0000b').attach('file', makePdf(), 'nul.pdf'),
        400,
        'invalid_value',
      );
      expect(filesUnder(media.dir)).toEqual(files);
    });

    it('needs a key and a reachable site', async () => {
      expectProblem(await request(t.server).get(base()), 401, 'missing_credential');
      expectProblem(await b.api.get(base()), 404, 'site_not_found');
    });
  });

  describe('GET /api/v2/sites/:siteName/media/:id', () => {
    it('returns the item', async () => {
      const res = await a.api.get(`${base()}/${ids['menu.pdf']}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: ids['menu.pdf'],
        mediaId: ids['menu.pdf'],
        attachmentId: ids['menu.pdf'],
        siteName: a.siteName,
        title: 'Lunch menu',
        caption: '',
        description: '',
        altText: '',
        fileName: 'menu.pdf',
        contentType: 'application/pdf',
        link: expect.stringMatching(/^http:\/\/localhost:3000\/files\/sites\/\d+\/[0-9a-f]{20}\/menu\.pdf$/),
        originalUrl: expect.any(String),
        size: null,
        width: null,
        height: null,
        filesize: makePdf('menu.pdf').length,
        mediaDate: ISO,
        isOriginal: true,
        isThumbnail: false,
        key: expect.any(String),
        categories: [],
        tags: [],
        thumbnails: [],
        updatedAt: ISO,
      });
      expect(res.body.originalUrl).toBe(res.body.link);
    });

    it("another site's id is a 404, a bad id a 400", async () => {
      expectProblem(await a.api.get(`${base()}/${ids.other}`), 404, 'not_found');
      const bad = await a.api.get(`${base()}/abc`);
      expectProblem(bad, 400, 'validation_failed');
      expect(bad.body.errors).toEqual([{ path: 'id', message: 'must be a positive integer' }]);
    });
  });

  describe('MediaService for other modules', () => {
    const siteOf = (x: Tenant) => ({ id: x.siteId, name: x.siteName, accountId: x.accountId });

    it("assertAttachable passes for the site's media and names each missing id", async () => {
      const service = t.app.get(MediaService);
      await expect(
        service.assertAttachable(t.db.manager, siteOf(a), [ids['menu.pdf'], ids['harbour.png'], ids['menu.pdf']]),
      ).resolves.toBeUndefined();
      await expect(service.assertAttachable(t.db.manager, siteOf(a), [])).resolves.toBeUndefined();
      const err = await service
        .assertAttachable(t.db.manager, siteOf(a), [ids['menu.pdf'], ids.other, 999999999], 'attachmentIds')
        .catch((e) => e);
      expect(err).toBeInstanceOf(ValidationProblem);
      expect([err.getStatus(), err.errors]).toEqual([
        400,
        [
          { path: 'attachmentIds', message: `media ${ids.other} does not exist in this site` },
          { path: 'attachmentIds', message: 'media 999999999 does not exist in this site' },
        ],
      ]);
    });

    it('viewsByIds keeps the order asked, skipping ids of other sites', async () => {
      const views = await t.app
        .get(MediaService)
        .viewsByIds(siteOf(a), [ids['notes.pdf'], ids.other, ids['menu.pdf'], 424242424]);
      expect(views.map((v) => [v.id, v.fileName, v.siteName])).toEqual([
        [ids['notes.pdf'], 'notes.pdf', a.siteName],
        [ids['menu.pdf'], 'menu.pdf', a.siteName],
      ]);
    });
  });

  describe('categories and tags', () => {
    const cats = () => `${base()}/categories`;

    it('creates a category with a slug made from the name, and refuses a duplicate slug with 409', async () => {
      const res = await a.api.post(cats()).send({ name: 'Travel Photos', description: 'Trips' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'Travel Photos',
        slug: 'travel-photos',
        description: 'Trips',
        createdAt: ISO,
        updatedAt: ISO,
      });
      expect(res.headers.location).toBe(`${t.configs.server.PUBLIC_BASE_URL}${cats()}/${res.body.id}`);
      const row = await t.db.getRepository(MediaCategoryEntity).findOneByOrFail({ id: res.body.id });
      expect(row).toEqual(expect.objectContaining({ siteId: a.siteId, slug: 'travel-photos' }));

      const dup = await a.api.post(cats()).send({ name: 'Other', slug: 'travel-photos' });
      expectProblem(dup, 409, 'duplicate_slug');
      // Slugs are per site: another site may use it.
      expect(
        (await b.api.post(`/api/v2/sites/${b.siteName}/media/categories`).send({ name: 'Travel photos' })).status,
      ).toBe(201);
    });

    it('validates bodies with 400 and paths', async () => {
      const res = await a.api.post(cats()).send({ name: '', slug: 'Not A Slug', extra: 1 });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['extra', 'name', 'slug']);
      const noSlug = await a.api.post(cats()).send({ name: '日本語' });
      expectProblem(noSlug, 400, 'validation_failed');
      expect(noSlug.body.errors).toEqual([{ path: 'slug', message: 'is required when the name gives no slug' }]);
    });

    it('gets, updates, lists and isolates categories', async () => {
      const created = await a.api.post(cats()).send({ name: 'Food' });
      const id = created.body.id;
      expect((await a.api.get(`${cats()}/${id}`)).body).toEqual(created.body);
      const upd = await a.api.patch(`${cats()}/${id}`).send({ name: 'Food & drink', description: 'Menus' });
      expect(upd.status).toBe(200);
      expect(upd.body).toEqual({ ...created.body, name: 'Food & drink', description: 'Menus', updatedAt: ISO });
      expect(await t.db.getRepository(MediaCategoryEntity).findOneByOrFail({ id })).toEqual(
        expect.objectContaining({ name: 'Food & drink', slug: 'food' }),
      );
      expectProblem(await a.api.patch(`${cats()}/${id}`).send({ slug: 'travel-photos' }), 409, 'duplicate_slug');
      expect((await t.db.getRepository(MediaCategoryEntity).findOneByOrFail({ id })).slug).toBe('food');

      const page1 = await a.api.get(`${cats()}?limit=1`);
      expect(page1.body.data.map((c: { slug: string }) => c.slug)).toEqual(['travel-photos']);
      const page2 = await a.api.get(`${cats()}?limit=1&cursor=${page1.body.pagination.nextCursor}`);
      expect(page2.body.data.map((c: { slug: string }) => c.slug)).toEqual(['food']);

      const theirs = (await b.api.get(`/api/v2/sites/${b.siteName}/media/categories`)).body.data[0].id;
      expectProblem(await a.api.get(`${cats()}/${theirs}`), 404, 'not_found');
      expectProblem(await a.api.patch(`${cats()}/${theirs}`).send({ name: 'x' }), 404, 'not_found');
      expectProblem(await a.api.delete(`${cats()}/${theirs}`), 404, 'not_found');
      expectProblem(await request(t.server).get(cats()), 401, 'missing_credential');
    });

    it('tags have the same rules', async () => {
      const tags = `${base()}/tags`;
      const res = await a.api.post(tags).send({ name: 'Blue' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'Blue',
        slug: 'blue',
        description: '',
        createdAt: ISO,
        updatedAt: ISO,
      });
      expectProblem(await a.api.post(tags).send({ name: 'BLUE' }), 409, 'duplicate_slug');
      expect((await a.api.get(`${tags}/${res.body.id}`)).body.slug).toBe('blue');
      expect((await a.api.patch(`${tags}/${res.body.id}`).send({ slug: 'blue-ish' })).body.slug).toBe('blue-ish');
      expect((await a.api.get(tags)).body.data.map((x: { slug: string }) => x.slug)).toEqual(['blue-ish']);
      expect((await a.api.delete(`${tags}/${res.body.id}`)).status).toBe(204);
      expectProblem(await a.api.get(`${tags}/${res.body.id}`), 404, 'not_found');
    });
  });

  describe('PATCH /api/v2/sites/:siteName/media/:id', () => {
    it('persists text, categories and tags, and records media.updated', async () => {
      const cat = (await a.api.post(`${base()}/categories`).send({ name: 'Harbours' })).body;
      const tag = (await a.api.post(`${base()}/tags`).send({ name: 'Boats' })).body;
      const id = ids['harbour.png'];
      const res = await a.api.patch(`${base()}/${id}`).send({
        title: 'Harbour',
        caption: 'Early',
        description: 'Boats at dawn',
        altText: 'Boats',
        categoryIds: [cat.id],
        tagIds: [tag.id],
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          id,
          title: 'Harbour',
          caption: 'Early',
          description: 'Boats at dawn',
          altText: 'Boats',
          categories: [{ id: cat.id, name: 'Harbours', slug: 'harbours' }],
          tags: [{ id: tag.id, name: 'Boats', slug: 'boats' }],
        }),
      );
      expect(await t.db.getRepository(MediaItemEntity).findOneByOrFail({ id })).toEqual(
        expect.objectContaining({
          title: 'Harbour',
          caption: 'Early',
          description: 'Boats at dawn',
          altText: 'Boats',
        }),
      );
      expect(await t.db.getRepository(MediaItemCategoryEntity).findBy({ mediaId: id })).toEqual([
        { mediaId: id, categoryId: cat.id, siteId: a.siteId },
      ]);
      // The thumbnail carries the original's text.
      expect(await t.db.getRepository(MediaItemEntity).findOneByOrFail({ originalId: id })).toEqual(
        expect.objectContaining({
          title: 'Harbour',
          caption: 'Early',
          description: 'Boats at dawn',
          altText: 'Boats',
        }),
      );
      const events = await t.db.getRepository(OutboxEventEntity).findBy({ siteId: a.siteId, name: 'media.updated' });
      expect(events.map((e) => e.payload)).toContainEqual({
        id,
        fields: ['title', 'caption', 'description', 'altText', 'categoryIds', 'tagIds'],
      });

      // Filters by category and tag, by id or slug.
      expect(titles(await a.api.get(`${base()}?category=harbours`))).toEqual(['Harbour']);
      expect(titles(await a.api.get(`${base()}?category=${cat.id}`))).toEqual(['Harbour']);
      expect(titles(await a.api.get(`${base()}?tag=boats`))).toEqual(['Harbour']);
      expect(titles(await a.api.get(`${base()}?tag=none-such`))).toEqual([]);

      // Deleting the category detaches it; the item stays.
      expect((await a.api.delete(`${base()}/categories/${cat.id}`)).status).toBe(204);
      expect(await t.db.getRepository(MediaItemCategoryEntity).countBy({ mediaId: id })).toBe(0);
      expect((await a.api.get(`${base()}/${id}`)).body.categories).toEqual([]);
      // An empty list clears the tags.
      expect((await a.api.patch(`${base()}/${id}`).send({ tagIds: [] })).body.tags).toEqual([]);
      expect(await t.db.getRepository(MediaItemTagEntity).countBy({ mediaId: id })).toBe(0);
    });

    it('refuses terms of another site, unknown fields and bad values, changing nothing', async () => {
      const id = ids['sunset.png'];
      const theirs = (await b.api.post(`/api/v2/sites/${b.siteName}/media/tags`).send({ name: 'Theirs' })).body.id;
      const cross = await a.api.patch(`${base()}/${id}`).send({ title: 'Changed', tagIds: [theirs] });
      expectProblem(cross, 400, 'validation_failed');
      expect(cross.body.errors).toEqual([{ path: 'tagIds', message: `tag ${theirs} does not exist in this site` }]);
      const bad = await a.api.patch(`${base()}/${id}`).send({ title: 5, categoryIds: ['x'], size: '1x1' });
      expectProblem(bad, 400, 'validation_failed');
      expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['categoryIds', 'size', 'title']);
      expect((await t.db.getRepository(MediaItemEntity).findOneByOrFail({ id })).title).toBe('Sunset');
      expectProblem(await a.api.patch(`${base()}/${ids.other}`).send({ title: 'x' }), 404, 'not_found');
      expectProblem(await b.api.patch(`${base()}/${id}`).send({ title: 'x' }), 404, 'site_not_found');
    });
  });

  describe('DELETE /api/v2/sites/:siteName/media/:id', () => {
    it('removes the item, its thumbnails and their files, and records media.deleted', async () => {
      const id = ids['sunset.png'];
      const rows = await t.db.getRepository(MediaItemEntity).find({ where: [{ id }, { originalId: id }] });
      expect(rows).toHaveLength(2);
      rows.forEach((r) => expect(existsSync(join(media.dir, r.storageKey))).toBe(true));

      const res = await a.api.delete(`${base()}/${id}`);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(await t.db.getRepository(MediaItemEntity).count({ where: [{ id }, { originalId: id }] })).toBe(0);
      rows.forEach((r) => expect(existsSync(join(media.dir, r.storageKey))).toBe(false));
      const event = await t.db
        .getRepository(OutboxEventEntity)
        .findOneByOrFail({ siteId: a.siteId, name: 'media.deleted' });
      expect(event.payload).toEqual({ id, thumbnailIds: [rows.find((r) => r.originalId === id)!.id] });
      const file = await request(t.server).get(`/files/${rows[0].storageKey}`);
      expectProblem(file, 404, 'not_found');

      expectProblem(await a.api.delete(`${base()}/${id}`), 404, 'not_found');
      expectProblem(await a.api.delete(`${base()}/${ids.other}`), 404, 'not_found');
      expect(await t.db.getRepository(MediaItemEntity).countBy({ id: ids.other })).toBe(1);
    });
  });
});
