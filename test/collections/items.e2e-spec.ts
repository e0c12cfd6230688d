import request from 'supertest';
import { CollectionItemEntity } from '../../src/collections/entities/collection-item.entity';
import { TestApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { Tenant, withTenants } from '../support/tenant';
import { eventsOf, lastEventId } from '../support/events';
import { contentUrl, makeContent } from '../support/factories';

const url = (tenant: Tenant, rest = '') => `/api/v2/sites/${tenant.siteName}/collections${rest}`;

describe('collection items (v2)', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  const ctx = withTenants(2);
  beforeAll(() => {
    t = ctx.t;
    [a, b] = ctx.tenants;
  });

  const makeCollection = async (tenant: Tenant, name: string): Promise<number> =>
    (await tenant.api.post(url(tenant)).send({ name }).expect(201)).body.id;
  const positions = async (collectionId: number) =>
    (await t.db.getRepository(CollectionItemEntity).find({ where: { collectionId }, order: { position: 'ASC' } })).map(
      (i) => [i.contentId, i.position],
    );
  const contentIdsOf = (res: request.Response) => res.body.data.map((i: { contentId: number }) => i.contentId);

  describe('POST /api/v2/sites/:siteName/collections/:id/items', () => {
    it('adds at the end by default and at a position on request, with events', async () => {
      const cid = await makeCollection(a, 'Ordered');
      const [x, y, z] = [
        await makeContent(a, { title: 'X', status: 'published', excerpt: 'About X' }),
        await makeContent(a, { title: 'Y' }),
        await makeContent(a, { title: 'Z' }),
      ];
      const since = await lastEventId(t);
      const first = await a.api.post(url(a, `/${cid}/items`)).send({ contentId: x.id });
      expect(first.status).toBe(201);
      expect(first.headers.location).toBe(
        `${t.configs.server.PUBLIC_BASE_URL}/api/v2/sites/${a.siteName}/collections/${cid}/items/${x.id}`,
      );
      expect(first.body).toEqual({
        contentId: x.id,
        position: 0,
        addedAt: expect.any(String),
        content: {
          id: x.id,
          type: 'post',
          title: 'X',
          slug: x.slug,
          excerpt: 'About X',
          status: 'published',
          publishedAt: x.publishedAt,
          thumbnail: '',
        },
      });
      await a.api
        .post(url(a, `/${cid}/items`))
        .send({ contentId: y.id })
        .expect(201);
      const atFront = await a.api.post(url(a, `/${cid}/items`)).send({ contentId: z.id, position: 0 });
      expect(atFront.body.position).toBe(0);
      expect(await positions(cid)).toEqual([
        [z.id, 0],
        [x.id, 1],
        [y.id, 2],
      ]);
      expect((await eventsOf(t, a, since)).map((e) => e.name)).toEqual([
        'collection.item_added',
        'collection.item_added',
        'collection.item_added',
      ]);
      expect((await eventsOf(t, a, since))[2].payload).toEqual({ collectionId: cid, contentId: z.id, position: 0 });
    });

    it('puts a position past the end at the end', async () => {
      const cid = await makeCollection(a, 'Short');
      const item = await makeContent(a, { title: 'Only' });
      const res = await a.api.post(url(a, `/${cid}/items`)).send({ contentId: item.id, position: 50 });
      expect(res.body.position).toBe(0);
    });

    it('answers 409 for the same content twice, leaving the order', async () => {
      const cid = await makeCollection(a, 'No repeats');
      const item = await makeContent(a, { title: 'Once' });
      await a.api
        .post(url(a, `/${cid}/items`))
        .send({ contentId: item.id })
        .expect(201);
      expectProblem(
        await a.api.post(url(a, `/${cid}/items`)).send({ contentId: item.id, position: 0 }),
        409,
        'duplicate_item',
      );
      expect(await positions(cid)).toEqual([[item.id, 0]]);
    });

    it("answers 404 for another site's content or collection, 400 for a bad body, 401 without a key", async () => {
      const cid = await makeCollection(a, 'Guarded');
      const theirs = await makeContent(b, { title: 'Theirs' });
      const mine = await makeContent(a, { title: 'Mine' });
      expectProblem(await a.api.post(url(a, `/${cid}/items`)).send({ contentId: theirs.id }), 404, 'not_found');
      expectProblem(await b.api.post(url(b, `/${cid}/items`)).send({ contentId: theirs.id }), 404, 'not_found');
      const bad = await a.api.post(url(a, `/${cid}/items`)).send({ contentId: 'one', position: -1 });
      expectProblem(bad, 400, 'validation_failed');
      expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['contentId', 'position']);
      expectProblem(
        await request(t.server)
          .post(url(a, `/${cid}/items`))
          .send({ contentId: mine.id }),
        401,
        'missing_credential',
      );
      expect(await positions(cid)).toEqual([]);
    });
  });

  describe('GET /api/v2/sites/:siteName/collections/:id/items', () => {
    it('lists in order; anonymous callers see only published content', async () => {
      const cid = await makeCollection(a, 'Mixed');
      const pub1 = await makeContent(a, { title: 'Pub one', status: 'published' });
      const draft = await makeContent(a, { title: 'Draft one' });
      const pub2 = await makeContent(a, { title: 'Pub two', status: 'published' });
      for (const c of [pub1, draft, pub2])
        await a.api
          .post(url(a, `/${cid}/items`))
          .send({ contentId: c.id })
          .expect(201);

      const keyed = await a.api.get(url(a, `/${cid}/items`));
      expect(keyed.status).toBe(200);
      expect(contentIdsOf(keyed)).toEqual([pub1.id, draft.id, pub2.id]);
      const anon = await request(t.server).get(url(a, `/${cid}/items`));
      expect(anon.status).toBe(200);
      expect(anon.body).toEqual({
        data: [
          expect.objectContaining({ contentId: pub1.id, position: 0 }),
          expect.objectContaining({ contentId: pub2.id, position: 2 }),
        ],
        pagination: { limit: 20, nextCursor: null },
      });
      expect(JSON.stringify(anon.body)).not.toContain('Draft one');
    });

    it('pages in position order', async () => {
      const cid = await makeCollection(a, 'Paged');
      const ids: number[] = [];
      for (const title of ['P1', 'P2', 'P3']) {
        const c = await makeContent(a, { title, status: 'published' });
        ids.push(c.id);
        await a.api
          .post(url(a, `/${cid}/items`))
          .send({ contentId: c.id })
          .expect(201);
      }
      const first = await request(t.server).get(url(a, `/${cid}/items?limit=2`));
      expect(contentIdsOf(first)).toEqual(ids.slice(0, 2));
      const second = await request(t.server).get(
        url(a, `/${cid}/items?limit=2&cursor=${first.body.pagination.nextCursor}`),
      );
      expect(contentIdsOf(second)).toEqual(ids.slice(2));
      expect(second.body.pagination.nextCursor).toBeNull();
    });

    it("answers 404 for another site's collection", async () => {
      const cid = await makeCollection(a, 'Private');
      expectProblem(await request(t.server).get(url(b, `/${cid}/items`)), 404, 'not_found');
    });
  });

  describe('DELETE /api/v2/sites/:siteName/collections/:id/items/:itemId', () => {
    it('removes the content from the collection (the content stays), with an event', async () => {
      const cid = await makeCollection(a, 'Trimmed');
      const keep = await makeContent(a, { title: 'Keep' });
      const drop = await makeContent(a, { title: 'Drop' });
      for (const c of [keep, drop])
        await a.api
          .post(url(a, `/${cid}/items`))
          .send({ contentId: c.id })
          .expect(201);
      const since = await lastEventId(t);
      const res = await a.api.delete(url(a, `/${cid}/items/${drop.id}`));
      expect(res.status).toBe(204);
      expect(await positions(cid)).toEqual([[keep.id, 0]]);
      expect((await a.api.get(contentUrl(a, `/${drop.id}`))).status).toBe(200);
      expect(await eventsOf(t, a, since)).toEqual([
        { name: 'collection.item_removed', payload: { collectionId: cid, contentId: drop.id } },
      ]);
      expectProblem(await a.api.delete(url(a, `/${cid}/items/${drop.id}`)), 404, 'not_found');
    });

    it('answers 404 for another site, 401 without a key', async () => {
      const cid = await makeCollection(a, 'Held');
      const item = await makeContent(a, { title: 'Held item' });
      await a.api
        .post(url(a, `/${cid}/items`))
        .send({ contentId: item.id })
        .expect(201);
      expectProblem(await b.api.delete(url(b, `/${cid}/items/${item.id}`)), 404, 'not_found');
      expectProblem(await request(t.server).delete(url(a, `/${cid}/items/${item.id}`)), 401, 'missing_credential');
      expect(await positions(cid)).toEqual([[item.id, 0]]);
    });

    it('deleting the content takes it out of every collection', async () => {
      const [c1, c2] = [await makeCollection(a, 'Holder one'), await makeCollection(a, 'Holder two')];
      const item = await makeContent(a, { title: 'Everywhere' });
      for (const cid of [c1, c2])
        await a.api
          .post(url(a, `/${cid}/items`))
          .send({ contentId: item.id })
          .expect(201);
      await a.api.delete(contentUrl(a, `/${item.id}`)).expect(204);
      expect([await positions(c1), await positions(c2)]).toEqual([[], []]);
    });
  });
});
