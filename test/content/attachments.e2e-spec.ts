import request from 'supertest';
import { OutboxEventEntity } from '../../src/common/outbox/outbox-event.entity';
import { ContentItemEntity } from '../../src/content/entities/content-item.entity';
import { ContentRevisionEntity } from '../../src/content/entities/content-revision.entity';
import { MediaDeletedSubscriber } from '../../src/content/media-deleted.subscriber';
import { MediaService } from '../../src/media/media.service';
import { eventually, startApp, TestApp } from '../support/app';
import { eventsOf, lastEventId } from '../support/events';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';
import { contentUrl, makeContent } from '../support/factories';
import { makePng, tempMediaDir } from '../support/files';

describe('content attachments (media of the site)', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  const media = tempMediaDir('content');
  let png: Buffer;

  beforeAll(async () => {
    // One thumbnail per upload (16 px wide), and a public cache that only a write can refresh.
    t = await startApp({
      env: { MEDIA_LOCAL_DIR: media.dir, MEDIA_THUMBNAIL_WIDTHS: '16', CONTENT_CACHE_TTL_MS: '600000' },
    });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
    png = await makePng(40, 30);
  });
  afterAll(async () => {
    await t.close();
    media.remove();
  });

  const upload = async (tenant: Tenant, name: string): Promise<number> => {
    const res = await tenant.api.post(`/api/v2/sites/${tenant.siteName}/media`).attach('file', png, name);
    expect(res.status).toBe(201);
    return res.body.id;
  };
  const row = (id: number) => t.db.getRepository(ContentItemEntity).findOneByOrFail({ id });

  it('stores attachments that are media of the site, and replaces them on update', async () => {
    const [m1, m2] = [await upload(a, 'one.png'), await upload(a, 'two.png')];
    const item = await makeContent(a, { title: 'Illustrated', attachmentIds: [m2, m1] });
    expect(item.attachmentIds).toEqual([m2, m1]);
    expect((await row(item.id)).attachmentIds).toEqual([m2, m1]);
    const res = await a.api.patch(contentUrl(a, `/${item.id}`)).send({ attachmentIds: [m1] });
    expect(res.body.attachmentIds).toEqual([m1]);
    expect((await row(item.id)).attachmentIds).toEqual([m1]);
  });

  it("answers 400 on attachmentIds for another site's media or a missing id, storing nothing", async () => {
    const theirs = await upload(b, 'theirs.png');
    const res = await a.api.post(contentUrl(a)).send({ title: 'Borrowing', attachmentIds: [theirs] });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([
      { path: 'attachmentIds', message: `media ${theirs} does not exist in this site` },
    ]);
    expect(await t.db.getRepository(ContentItemEntity).countBy({ title: 'Borrowing' })).toBe(0);

    const item = await makeContent(a, { title: 'Kept as is' });
    expectProblem(
      await a.api.patch(contentUrl(a, `/${item.id}`)).send({ attachmentIds: [987654321] }),
      400,
      'validation_failed',
    );
    expect(await row(item.id)).toMatchObject({ attachmentIds: [], version: 1 });
  });

  it('restores attachments, leaving out media deleted since', async () => {
    const [kept, dropped] = [await upload(a, 'kept.png'), await upload(a, 'dropped.png')];
    const item = await makeContent(a, { title: 'Gallery', attachmentIds: [kept, dropped] });
    await a.api
      .patch(contentUrl(a, `/${item.id}`))
      .send({ attachmentIds: [] })
      .expect(200);
    await a.api.delete(`/api/v2/sites/${a.siteName}/media/${dropped}`).expect(204);
    const [, first] = (await a.api.get(contentUrl(a, `/${item.id}/revisions`))).body.data;
    const res = await a.api.post(contentUrl(a, `/${item.id}/revisions/${first.id}/restore`));
    expect(res.status).toBe(200);
    expect(res.body.attachmentIds).toEqual([kept]);
    expect(await row(item.id)).toMatchObject({ attachmentIds: [kept], version: 3 });
  });

  describe('deleting a media item takes it out of the content that attached it', () => {
    const mediaUrl = (tenant: Tenant, rest = '') => `/api/v2/sites/${tenant.siteName}/media${rest}`;
    const v1Page = (tenant: Tenant, id: number) => `/v1/${tenant.siteName}/pages/${id}`;
    const revisions = (contentId: number) =>
      t.db.getRepository(ContentRevisionEntity).find({ where: { contentId }, order: { number: 'ASC' } });
    const mediaDeletedEvent = (mediaId: number) =>
      t.db
        .getRepository(OutboxEventEntity)
        .createQueryBuilder('e')
        .where("e.name = 'media.deleted' AND (e.payload->>'id')::bigint = :mediaId", { mediaId })
        .getOneOrFail();
    /** The item as a key holder reads it, once its attachments are `ids`. */
    const attachmentsBecome = (tenant: Tenant, id: number, ids: number[]) =>
      eventually(async () => {
        const res = await tenant.api.get(contentUrl(tenant, `/${id}`));
        expect(res.status).toBe(200);
        return JSON.stringify(res.body.attachmentIds) === JSON.stringify(ids) ? res : undefined;
      });

    it('v2 and v1 reads, the row, a revision and an event follow; other sites and a second delivery change nothing', async () => {
      const [m1, m2] = [await upload(a, 'gone.png'), await upload(a, 'stays.png')];
      const [thumbnail] = (await a.api.get(mediaUrl(a, `/${m1}`)).expect(200)).body.thumbnails;
      const item = await makeContent(a, { title: 'Two pictures', status: 'published', attachmentIds: [m1, m2] });
      const untouched = await makeContent(a, { title: 'Only the other one', attachmentIds: [m2] });
      // Another tenant's item whose row lists a's media id: no API write can do that (ids are
      // checked), so only the statement's site condition keeps it apart.
      const theirs = await upload(b, 'theirs.png');
      const other = await makeContent(b, { title: 'Elsewhere', attachmentIds: [theirs] });
      await t.db.getRepository(ContentItemEntity).update({ id: other.id }, { attachmentIds: [theirs, m1] });

      const anonymous = () => request(t.server).get(contentUrl(a, `/${item.slug}`));
      const cached = await anonymous();
      expect(cached.status).toBe(200);
      expect(cached.body.attachmentIds).toEqual([m1, m2]);
      const v1Before = await a.api.get(v1Page(a, item.id));
      expect(v1Before.status).toBe(200);
      expect(v1Before.body.media.map((m: { media_id: number }) => m.media_id)).toEqual([m1, m2]);
      const before = await a.api.get(contentUrl(a, `/${item.id}`));
      expect(before.headers.etag).toBe(`"${item.id}-1"`);
      const since = await lastEventId(t);

      const deleted = await a.api.delete(mediaUrl(a, `/${m1}`));
      expect(deleted.status).toBe(204);
      expect(deleted.body).toEqual({});

      // v2: the item changed like an edit (version, ETag, updatedAt); the anonymous copy is gone.
      const after = await attachmentsBecome(a, item.id, [m2]);
      expect(after.headers.etag).toBe(`"${item.id}-2"`);
      expect(after.body).toMatchObject({ id: item.id, version: 2, status: 'published', title: 'Two pictures' });
      expect(new Date(after.body.updatedAt).getTime()).toBeGreaterThan(new Date(before.body.updatedAt).getTime());
      const fresh = await anonymous();
      expect(fresh.status).toBe(200);
      expect(fresh.body.attachmentIds).toEqual([m2]);
      expectProblem(
        await a.api
          .patch(contentUrl(a, `/${item.id}`))
          .set('If-Match', before.headers.etag)
          .send({ title: 'Stale editor' }),
        412,
        'precondition_failed',
      );

      // v1: the page's media are the remaining one.
      const v1After = await a.api.get(v1Page(a, item.id));
      expect(v1After.status).toBe(200);
      expect(v1After.body.media.map((m: { media_id: number }) => m.media_id)).toEqual([m2]);

      // The database: the row, a revision by the system, content.updated after media.deleted.
      expect(await row(item.id)).toMatchObject({ attachmentIds: [m2], version: 2, title: 'Two pictures' });
      const history = await revisions(item.id);
      expect(history.map((r) => [r.number, r.action, r.actorType, r.actorId])).toEqual([
        [1, 'created', 'key', a.keyId],
        [2, 'updated', 'system', null],
      ]);
      expect(history[1].snapshot).toEqual({ ...history[0].snapshot, attachmentIds: [m2] });
      const newest = await a.api.get(contentUrl(a, `/${item.id}/revisions`));
      expect(newest.status).toBe(200);
      expect(newest.body.data[0]).toMatchObject({ number: 2, action: 'updated', actor: { type: 'system', id: null } });
      const events = await eventsOf(t, a, since);
      expect(events).toEqual([
        { name: 'media.deleted', payload: { id: m1, thumbnailIds: [thumbnail.id] } },
        {
          name: 'content.updated',
          payload: { id: item.id, type: 'post', slug: item.slug, status: 'published', version: 2 },
        },
      ]);

      // Items that did not list it, and the other site's row, are as they were.
      expect(await row(untouched.id)).toMatchObject({ attachmentIds: [m2], version: 1 });
      expect(await row(other.id)).toMatchObject({ attachmentIds: [theirs, m1], version: 1 });
      expect((await b.api.get(contentUrl(b, `/${other.id}`))).body).toMatchObject({
        attachmentIds: [theirs, m1],
        version: 1,
      });
      expect((await revisions(other.id)).length).toBe(1);
      expect(await eventsOf(t, b, since)).toEqual([]);

      // A second delivery of the same event, by the relay and by a direct call, changes nothing.
      const event = await mediaDeletedEvent(m1);
      expect(event.dispatchedAt).not.toBeNull();
      await t.db.getRepository(OutboxEventEntity).update({ id: event.id }, { dispatchedAt: null });
      await eventually(async () => ((await mediaDeletedEvent(m1)).dispatchedAt ? true : undefined));
      const subscriber = t.app.get(MediaDeletedSubscriber);
      const changed = await t.db.transaction((em) =>
        subscriber.handle(em, {
          id: event.id,
          accountId: event.accountId,
          siteId: event.siteId,
          name: event.name,
          payload: event.payload,
          createdAt: event.createdAt,
        }),
      );
      expect(changed).toBe(0);
      expect(await row(item.id)).toMatchObject({ attachmentIds: [m2], version: 2 });
      expect((await revisions(item.id)).length).toBe(2);
      expect(await eventsOf(t, a, since)).toHaveLength(2);
      expect(await row(other.id)).toMatchObject({ attachmentIds: [theirs, m1], version: 1 });
      const again = await a.api.get(contentUrl(a, `/${item.id}`));
      expect(again.status).toBe(200);
      expect(again.headers.etag).toBe(`"${item.id}-2"`);
      expect(again.body.attachmentIds).toEqual([m2]);
    });

    it('v1 project deletes take the originals and their thumbnails out, keeping the order of the rest', async () => {
      const [m1, m2, m3] = [await upload(a, 'p1.png'), await upload(a, 'p2.png'), await upload(a, 'p3.png')];
      const detail = (await a.api.get(mediaUrl(a, `/${m1}`)).expect(200)).body;
      const thumbnail: number = detail.thumbnails[0].id;
      const item = await makeContent(a, { title: 'Mixed', attachmentIds: [m3, thumbnail, m1, m2] });
      const thumbOnly = await makeContent(a, { title: 'Thumbnail only', attachmentIds: [thumbnail] });

      const res = await a.api.delete(`/v1/project/${a.accountId}/${a.siteId}/media`).send({ keys: [detail.key] });
      expect(res.status).toBe(204);

      const after = await attachmentsBecome(a, item.id, [m3, m2]);
      expect(after.headers.etag).toBe(`"${item.id}-2"`);
      const emptied = await attachmentsBecome(a, thumbOnly.id, []);
      expect(emptied.body.version).toBe(2);
      const page = await a.api.get(v1Page(a, item.id));
      expect(page.status).toBe(200);
      expect(page.body.media.map((m: { media_id: number }) => m.media_id)).toEqual([m3, m2]);
      expect(await row(item.id)).toMatchObject({ attachmentIds: [m3, m2], version: 2 });
      expect(await row(thumbOnly.id)).toMatchObject({ attachmentIds: [], version: 2 });
      expect((await revisions(item.id)).map((r) => r.snapshot.attachmentIds)).toEqual([
        [m3, thumbnail, m1, m2],
        [m3, m2],
      ]);
    });

    it('a delete waits for a write that is attaching the item, then takes it out of what that write stored', async () => {
      const [m1, m2] = [await upload(a, 'racing.png'), await upload(a, 'steady.png')];
      const item = await makeContent(a, { title: 'Racing', attachmentIds: [m2] });
      const site = { id: a.siteId, name: a.siteName, accountId: a.accountId };
      const runner = t.db.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      let deleted: request.Response | undefined;
      try {
        // A content write in flight: its attachment check passed, its row is not committed yet.
        await t.app.get(MediaService).assertAttachable(runner.manager, site, [m1, m2], 'attachmentIds');
        const deletion = a.api.delete(mediaUrl(a, `/${m1}`)).then((res) => (deleted = res));
        await new Promise((r) => setTimeout(r, 300));
        expect(deleted).toBeUndefined();
        await runner.manager.update(ContentItemEntity, { id: item.id }, { attachmentIds: [m1, m2] });
        await runner.commitTransaction();
        await deletion;
      } finally {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
      }
      expect(deleted?.status).toBe(204);
      const after = await attachmentsBecome(a, item.id, [m2]);
      expect(after.body.version).toBe(2);
      expect(await row(item.id)).toMatchObject({ attachmentIds: [m2], version: 2 });
      expect((await a.api.get(mediaUrl(a, `/${m1}`))).status).toBe(404);
    });
  });
});
