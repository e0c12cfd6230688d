import { existsSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { MediaItemEntity } from '../../src/media/entities/media-item.entity';
import { startApp, TestApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';
import { binary, makePdf, makePng, pathOf, tempMediaDir } from '../support/files';
import { ISO } from '../support/matchers';

describe('v1 media routes', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  const media = tempMediaDir('v1');
  const items = () => t.db.getRepository(MediaItemEntity);

  beforeAll(async () => {
    t = await startApp({
      env: {
        MEDIA_LOCAL_DIR: media.dir,
        MEDIA_THUMBNAIL_WIDTHS: '16',
        MEDIA_MAX_FILES: '3',
        PUBLIC_BASE_URL: 'https://cdn.example',
      },
    });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(async () => {
    try {
      await t?.close();
    } finally {
      media.remove();
    }
  });

  describe('POST /v1/:site_name/media', () => {
    it('answers 200 with an empty body and the file URL in Location', async () => {
      const png = await makePng(30, 20);
      const res = await a.api
        .post(`/v1/${a.siteName}/media`)
        .field('title', 'Logo')
        .field('alt_text', 'Our logo')
        .attach('file', png, 'logo.png');
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      expect(res.headers['content-length']).toBe('0');
      expect(res.headers.location).toMatch(
        new RegExp(`^https://cdn\\.example/files/sites/${a.siteId}/[0-9a-f]{20}/logo\\.png$`),
      );
      const row = await items().findOneByOrFail({
        storageKey: res.headers.location.replace('https://cdn.example/files/', ''),
      });
      expect(row).toEqual(
        expect.objectContaining({
          siteId: a.siteId,
          originalId: null,
          title: 'Logo',
          altText: 'Our logo',
          width: 30,
          height: 20,
        }),
      );
      const file = await request(t.server).get(pathOf(res.headers.location)).buffer(true).parse(binary);
      expect(Buffer.compare(file.body as Buffer, png)).toBe(0);
    });

    it('refuses what v2 refuses, with v1 field names', async () => {
      const bad = await a.api.post(`/v1/${a.siteName}/media`).field('altText', 'x').attach('file', makePdf(), 'a.pdf');
      expectProblem(bad, 400, 'validation_failed');
      expect(bad.body.errors).toEqual([{ path: 'altText', message: 'is not allowed' }]);
      expectProblem(
        await a.api.post(`/v1/${a.siteName}/media`).attach('file', Buffer.from('hello'), 'a.png'),
        415,
        'unsupported_media_type',
      );
      expectProblem(
        await request(t.server).post(`/v1/${a.siteName}/media`).attach('file', makePdf(), 'a.pdf'),
        401,
        'missing_api_key',
      );
      expectProblem(
        await b.api.post(`/v1/${a.siteName}/media`).attach('file', makePdf(), 'a.pdf'),
        404,
        'site_not_found',
      );
    });
  });

  describe('GET /v1/:site_name/media/:limit/:offset', () => {
    it('pages by offset with the §2.2 fields', async () => {
      await a.api.post(`/v1/${a.siteName}/media`).attach('file', makePdf('x'), 'Price list.pdf').expect(200);
      const total = await items().countBy({ siteId: a.siteId });
      const res = await a.api.get(`/v1/${a.siteName}/media/2/0`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: expect.any(Array), total, limit: 2, offset: 0 });
      const pdf = await items().findOneByOrFail({ siteId: a.siteId, fileName: 'Price list.pdf' });
      const link = `https://cdn.example/files/${pdf.storageKey}`;
      expect(res.body.data[0]).toEqual({
        media_id: pdf.id,
        attachment_id: pdf.id,
        site_name: a.siteName,
        title: 'Price list',
        caption: '',
        description: '',
        file_name: 'Price list.pdf',
        content_type: 'application/pdf',
        link,
        original_url: link,
        size: null,
        width: null,
        height: null,
        filesize: makePdf('x').length,
        media_date: ISO,
        is_original: true,
        is_thumbnail: false,
      });
      // The logo's thumbnail (newer than the logo) points back at it.
      const [thumb, logo] = [res.body.data[1], (await a.api.get(`/v1/${a.siteName}/media/1/2`)).body.data[0]];
      expect(thumb).toEqual(
        expect.objectContaining({
          attachment_id: logo.media_id,
          original_url: logo.link,
          is_original: false,
          is_thumbnail: true,
          size: '16x11',
          width: 16,
          height: 11,
        }),
      );
      expect(logo).toEqual(expect.objectContaining({ is_original: true, size: '30x20', title: 'Logo' }));
      const past = await a.api.get(`/v1/${a.siteName}/media/10/${total}`);
      expect(past.body).toEqual({ data: [], total, limit: 10, offset: total });
    });

    it.each([
      ['0/0', 'limit'],
      ['101/0', 'limit'],
      ['abc/0', 'limit'],
      ['10/-1', 'offset'],
      ['10/x', 'offset'],
      ['1.5/0', 'limit'],
    ])('/%s is a 400 naming %s', async (tail, path) => {
      const res = await a.api.get(`/v1/${a.siteName}/media/${tail}`);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
    });

    it("needs x-api-key and the caller's own site", async () => {
      expectProblem(await request(t.server).get(`/v1/${a.siteName}/media/10/0`), 401, 'missing_api_key');
      expectProblem(
        await request(t.server).get(`/v1/${a.siteName}/media/10/0`).set('authorization', `Bearer ${a.key}`),
        401,
        'missing_api_key',
      );
      expectProblem(await b.api.get(`/v1/${a.siteName}/media/10/0`), 404, 'site_not_found');
    });
  });

  describe('project media /v1/project/:organization_id/:project_id/media', () => {
    const project = (x: Tenant) => `/v1/project/${x.accountId}/${x.siteId}/media`;

    it('uploads several files (204), then deletes them by key (204) with their files', async () => {
      const before = await items().countBy({ siteId: a.siteId });
      const res = await a.api
        .post(project(a))
        .attach('file', await makePng(20, 20), 'one.png')
        .attach('file', makePdf('2'), 'two.pdf')
        .attach('files', makePdf('3'), 'three.pdf');
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      const created = await items().find({ where: { siteId: a.siteId }, order: { id: 'ASC' }, skip: before });
      expect(created.map((r) => [r.fileName, r.originalId === null])).toEqual([
        ['one.png', true],
        ['one-16w.png', false],
        ['two.pdf', true],
        ['three.pdf', true],
      ]);
      for (const r of created) expect(r.storageKey).toMatch(new RegExp(`^sites/${a.siteId}/[0-9a-f]{20}/`));

      // Keys of another project, or keys that do not exist, touch nothing.
      const theirs = await b.api.post(project(b)).attach('file', makePdf('b'), 'b.pdf');
      expect(theirs.status).toBe(204);
      const bRow = await items().findOneByOrFail({ siteId: b.siteId });
      const [one, , two] = created;
      const del = await a.api
        .delete(project(a))
        .send({ keys: [one.storageKey, two.storageKey, bRow.storageKey, 'sites/0/nope/x.pdf', '../../etc/passwd'] });
      expect(del.status).toBe(204);
      expect(del.text).toBe('');
      expect(
        (await items().find({ where: { siteId: a.siteId }, order: { id: 'ASC' }, skip: before })).map(
          (r) => r.fileName,
        ),
      ).toEqual(['three.pdf']);
      for (const r of created.slice(0, 3)) expect(existsSync(join(media.dir, r.storageKey))).toBe(false);
      expect(existsSync(join(media.dir, bRow.storageKey))).toBe(true);
      expect(await items().countBy({ id: bRow.id })).toBe(1);
    });

    it("another account's project, an unknown project, or a wrong organization is a 404", async () => {
      const file = makePdf();
      expectProblem(await b.api.post(project(a)).attach('file', file, 'x.pdf'), 404, 'site_not_found');
      expectProblem(await b.api.delete(project(a)).send({ keys: ['x'] }), 404, 'site_not_found');
      expectProblem(
        await a.api.post(`/v1/project/${b.accountId}/${a.siteId}/media`).attach('file', file, 'x.pdf'),
        404,
        'site_not_found',
      );
      expectProblem(
        await a.api.post(`/v1/project/${a.accountId}/999999999/media`).attach('file', file, 'x.pdf'),
        404,
        'site_not_found',
      );
      // A malformed id is a 400 naming it, as on every route (docs/foundation.md, "Input rules").
      expectProblem(
        await a.api.post(`/v1/project/${a.accountId}/abc/media`).attach('file', file, 'x.pdf'),
        400,
        'validation_failed',
      );
      expectProblem(
        await request(t.server)
          .delete(project(a))
          .send({ keys: ['x'] }),
        401,
        'missing_api_key',
      );
    });

    it('bad bodies are 400 with paths', async () => {
      for (const [body, path] of [
        [{}, 'keys'],
        [{ keys: 'x' }, 'keys'],
        [{ keys: [] }, 'keys'],
        [{ keys: [1] }, 'keys'],
        [{ keys: ['a'], all: true }, 'all'],
      ] as const) {
        const res = await a.api.delete(project(a)).send(body);
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
      }
      const many = a.api.post(project(a));
      for (let i = 0; i < 4; i++) many.attach('file', makePdf(String(i)), `${i}.pdf`);
      const tooMany = await many;
      expectProblem(tooMany, 400, 'validation_failed');
      expect(tooMany.body.errors).toEqual([{ path: 'file', message: 'at most 3 file(s) per request' }]);
      const none = await a.api.post(project(a)).field('title', 'x');
      expectProblem(none, 400, 'validation_failed');
      expect(none.body.errors).toEqual([{ path: 'file', message: 'is required' }]);
    });

    it('all or nothing: one refused file keeps the others out', async () => {
      const before = await items().countBy({ siteId: a.siteId });
      const res = await a.api
        .post(project(a))
        .attach('file', makePdf(), 'ok.pdf')
        .attach('file', Buffer.from('text'), 'bad.pdf');
      expectProblem(res, 415, 'unsupported_media_type');
      expect(await items().countBy({ siteId: a.siteId })).toBe(before);
    });
  });
});
