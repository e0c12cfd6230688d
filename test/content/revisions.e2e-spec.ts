import request from 'supertest';
import { ContentItemEntity } from '../../src/content/entities/content-item.entity';
import { TestApp, startApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';
import { eventsOf, lastEventId } from '../support/events';
import { contentUrl, makeContent } from '../support/factories';

describe('content revisions (v2)', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startApp();
    a = await createTenant(t);
    b = await createTenant(t);
  });
  afterAll(() => t.close());

  const revisionCount = async (id: number) =>
    (await t.db.query('SELECT count(*)::int AS n FROM content_revisions WHERE content_id = $1', [id]))[0].n;

  /** An item with three revisions: created, updated (title), published. */
  async function historyItem(title: string) {
    const item = await makeContent(a, { title, content: 'v1 body', tags: ['one'], customFields: { v: 1 } });
    await a.api
      .patch(contentUrl(a, `/${item.id}`))
      .send({ title: `${title} (edited)`, content: 'v2 body', tags: ['two'], customFields: { v: 2 } })
      .expect(200);
    await a.api
      .post(contentUrl(a, `/${item.id}/publish`))
      .send({})
      .expect(200);
    return item;
  }

  describe('GET /api/v2/sites/:siteName/content/:id/revisions', () => {
    it('lists newest first, without snapshots, in keyset pages', async () => {
      const item = await historyItem('Listed');
      const first = await a.api.get(contentUrl(a, `/${item.id}/revisions?limit=2`));
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        data: [
          {
            id: expect.any(Number),
            contentId: item.id,
            number: 3,
            action: 'published',
            actor: { type: 'key', id: a.keyId },
            restoredFrom: null,
            createdAt: expect.any(String),
          },
          {
            id: expect.any(Number),
            contentId: item.id,
            number: 2,
            action: 'updated',
            actor: { type: 'key', id: a.keyId },
            restoredFrom: null,
            createdAt: expect.any(String),
          },
        ],
        pagination: { limit: 2, nextCursor: expect.any(String) },
      });
      const second = await a.api.get(
        contentUrl(a, `/${item.id}/revisions?limit=2&cursor=${first.body.pagination.nextCursor}`),
      );
      expect(second.body.data.map((r: { number: number }) => r.number)).toEqual([1]);
      expect(second.body.pagination.nextCursor).toBeNull();
    });

    it('answers 404 for another site, 401 without a key, 400 for a bad cursor', async () => {
      const item = await makeContent(a, { title: 'Private history', status: 'published' });
      expectProblem(await b.api.get(contentUrl(b, `/${item.id}/revisions`)), 404, 'not_found');
      expectProblem(await request(t.server).get(contentUrl(a, `/${item.id}/revisions`)), 401, 'missing_credential');
      expectProblem(await a.api.get(contentUrl(a, `/${item.id}/revisions?cursor=xyz`)), 400, 'invalid_cursor');
    });
  });

  describe('GET /api/v2/sites/:siteName/content/:id/revisions/:revisionId', () => {
    it('returns the full snapshot of the item after that change', async () => {
      const item = await historyItem('Snapshotted');
      const list = await a.api.get(contentUrl(a, `/${item.id}/revisions`));
      const firstRev = list.body.data.find((r: { number: number }) => r.number === 1);
      const res = await a.api.get(contentUrl(a, `/${item.id}/revisions/${firstRev.id}`));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...firstRev,
        snapshot: {
          type: 'post',
          title: 'Snapshotted',
          slug: 'snapshotted',
          content: 'v1 body',
          format: 'html',
          excerpt: '',
          status: 'draft',
          publishAt: null,
          publishedAt: null,
          tags: ['one'],
          categories: [],
          authors: [],
          template: '',
          thumbnail: '',
          description: '',
          customFields: { v: 1 },
          attachmentIds: [],
        },
      });
    });

    it('answers 404 for a revision of another item or site, 400 for a bad id', async () => {
      const one = await historyItem('One');
      const other = await makeContent(a, { title: 'Other' });
      const [rev] = (await a.api.get(contentUrl(a, `/${one.id}/revisions`))).body.data;
      expectProblem(await a.api.get(contentUrl(a, `/${other.id}/revisions/${rev.id}`)), 404, 'not_found');
      expectProblem(await b.api.get(contentUrl(b, `/${one.id}/revisions/${rev.id}`)), 404, 'not_found');
      const bad = await a.api.get(contentUrl(a, `/${one.id}/revisions/x`));
      expectProblem(bad, 400, 'validation_failed');
      expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(['revisionId']);
    });
  });

  describe('POST /api/v2/sites/:siteName/content/:id/revisions/:revisionId/restore', () => {
    it('brings back the old fields as a new revision, keeping status and history', async () => {
      const item = await historyItem('Restorable');
      const [, , firstRev] = (await a.api.get(contentUrl(a, `/${item.id}/revisions`))).body.data;
      expect(firstRev.number).toBe(1);
      const since = await lastEventId(t);
      const res = await a.api.post(contentUrl(a, `/${item.id}/revisions/${firstRev.id}/restore`));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        title: 'Restorable',
        content: 'v1 body',
        tags: ['one'],
        customFields: { v: 1 },
        slug: 'restorable',
        status: 'published',
        version: 4,
      });
      expect(res.headers.etag).toBe(`"${item.id}-4"`);
      expect(await t.db.getRepository(ContentItemEntity).findOneBy({ id: item.id })).toMatchObject({
        title: 'Restorable',
        content: 'v1 body',
        status: 'published',
        version: 4,
      });
      const list = await a.api.get(contentUrl(a, `/${item.id}/revisions`));
      expect(
        list.body.data.map((r: { number: number; action: string; restoredFrom: number | null }) => [
          r.number,
          r.action,
          r.restoredFrom,
        ]),
      ).toEqual([
        [4, 'restored', 1],
        [3, 'published', null],
        [2, 'updated', null],
        [1, 'created', null],
      ]);
      expect(await eventsOf(t, a, since)).toEqual([
        {
          name: 'content.updated',
          payload: { id: item.id, type: 'post', slug: 'restorable', status: 'published', version: 4 },
        },
      ]);
      // The edited text is still in history and can be restored in turn.
      const [, , edited] = list.body.data;
      const again = await a.api.post(contentUrl(a, `/${item.id}/revisions/${edited.id}/restore`));
      expect(again.body).toMatchObject({ title: 'Restorable (edited)', content: 'v2 body', version: 5 });
    });

    it('answers 409 duplicate_slug when another item took the old slug (row unchanged)', async () => {
      const item = await makeContent(a, { title: 'Slug owner', slug: 'first-slug' });
      await a.api
        .patch(contentUrl(a, `/${item.id}`))
        .send({ slug: 'second-slug' })
        .expect(200);
      await makeContent(a, { title: 'Squatter', slug: 'first-slug' });
      const [, firstRev] = (await a.api.get(contentUrl(a, `/${item.id}/revisions`))).body.data;
      expectProblem(
        await a.api.post(contentUrl(a, `/${item.id}/revisions/${firstRev.id}/restore`)),
        409,
        'duplicate_slug',
      );
      expect(await t.db.getRepository(ContentItemEntity).findOneBy({ id: item.id })).toMatchObject({
        slug: 'second-slug',
        version: 2,
      });
      expect(await revisionCount(item.id)).toBe(2);
    });

    it('answers 404 for another site or revision, 401 without a key', async () => {
      const item = await historyItem('Locked');
      const [rev] = (await a.api.get(contentUrl(a, `/${item.id}/revisions`))).body.data;
      expectProblem(await b.api.post(contentUrl(b, `/${item.id}/revisions/${rev.id}/restore`)), 404, 'not_found');
      expectProblem(await a.api.post(contentUrl(a, `/${item.id}/revisions/999999999/restore`)), 404, 'not_found');
      expectProblem(
        await request(t.server).post(contentUrl(a, `/${item.id}/revisions/${rev.id}/restore`)),
        401,
        'missing_credential',
      );
      expect(await revisionCount(item.id)).toBe(3);
    });
  });
});
