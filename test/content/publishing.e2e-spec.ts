import request from 'supertest';
import { ContentItemEntity } from '../../src/content/entities/content-item.entity';
import { eventually, TestApp, startApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';
import { eventsOf, lastEventId } from '../support/events';
import { contentUrl, makeContent } from '../support/factories';

describe('publishing content (v2)', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startApp();
    a = await createTenant(t);
    b = await createTenant(t);
  });
  afterAll(() => t.close());

  const row = (id: number) => t.db.getRepository(ContentItemEntity).findOneByOrFail({ id });
  const revisions = (id: number) =>
    t.db.query('SELECT number, action, actor_type FROM content_revisions WHERE content_id = $1 ORDER BY number', [id]);

  describe('POST /api/v2/sites/:siteName/content/:id/publish', () => {
    it('publishes a draft now: 200 with the new state, a revision and content.published', async () => {
      const item = await makeContent(a, { title: 'Fresh' });
      const since = await lastEventId(t);
      const before = Date.now();
      const res = await a.api.post(contentUrl(a, `/${item.id}/publish`)).send({});
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...item,
        status: 'published',
        publishedAt: expect.any(String),
        version: 2,
        updatedAt: expect.any(String),
      });
      expect(Date.parse(res.body.publishedAt)).toBeGreaterThanOrEqual(before - 5);
      expect(res.headers.etag).toBe(`"${item.id}-2"`);
      expect(await row(item.id)).toMatchObject({ status: 'published', version: 2 });
      expect(await revisions(item.id)).toEqual([
        { number: 1, action: 'created', actor_type: 'key' },
        { number: 2, action: 'published', actor_type: 'key' },
      ]);
      expect(await eventsOf(t, a, since)).toEqual([
        {
          name: 'content.published',
          payload: { id: item.id, type: 'post', slug: 'fresh', status: 'published', version: 2 },
        },
      ]);
      expect((await request(t.server).get(contentUrl(a, '/fresh'))).status).toBe(200);
    });

    it('answers 409 transition_forbidden for a published or archived item, changing nothing', async () => {
      const published = await makeContent(a, { title: 'Already out', status: 'published' });
      expectProblem(await a.api.post(contentUrl(a, `/${published.id}/publish`)).send({}), 409, 'transition_forbidden');
      expect(await row(published.id)).toMatchObject({ status: 'published', version: 1 });
      const archived = await makeContent(a, { title: 'Gone', status: 'archived' });
      expectProblem(await a.api.post(contentUrl(a, `/${archived.id}/publish`)).send({}), 409, 'transition_forbidden');
      expect(await row(archived.id)).toMatchObject({ status: 'archived', publishedAt: null, version: 1 });
    });

    it('keeps the first publication date when published again', async () => {
      const item = await makeContent(a, {
        title: 'Back again',
        status: 'published',
        publishedAt: '2024-05-01T10:00:00.000Z',
      });
      await a.api.post(contentUrl(a, `/${item.id}/unpublish`)).expect(200);
      const res = await a.api.post(contentUrl(a, `/${item.id}/publish`)).send({});
      expect(res.body.publishedAt).toBe('2024-05-01T10:00:00.000Z');
    });

    it('schedules a future publishAt, and the job publishes it on time', async () => {
      const item = await makeContent(a, { title: 'Coming soon' });
      const publishAt = new Date(Date.now() + 2000);
      publishAt.setMilliseconds(0);
      const since = await lastEventId(t);
      const res = await a.api.post(contentUrl(a, `/${item.id}/publish`)).send({ publishAt: publishAt.toISOString() });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'scheduled',
        publishAt: publishAt.toISOString(),
        publishedAt: null,
        version: 2,
      });
      expectProblem(await request(t.server).get(contentUrl(a, `/${item.id}`)), 404, 'not_found');

      const published = await eventually(
        async () => {
          const r = await row(item.id);
          return r.status === 'published' ? r : undefined;
        },
        15000,
        200,
      );
      expect(Date.now()).toBeGreaterThanOrEqual(publishAt.getTime());
      expect(published).toMatchObject({ publishAt: null, publishedAt: publishAt, version: 3 });
      expect((await request(t.server).get(contentUrl(a, `/${item.id}`))).body.status).toBe('published');
      expect(await revisions(item.id)).toEqual([
        { number: 1, action: 'created', actor_type: 'key' },
        { number: 2, action: 'scheduled', actor_type: 'key' },
        { number: 3, action: 'published', actor_type: 'system' },
      ]);
      expect((await eventsOf(t, a, since)).map((e) => e.name)).toEqual(['content.updated', 'content.published']);
    });

    it('a cancelled schedule stays a draft when its job runs', async () => {
      const item = await makeContent(a, { title: 'Called off' });
      const publishAt = new Date(Date.now() + 1500).toISOString();
      await a.api
        .post(contentUrl(a, `/${item.id}/publish`))
        .send({ publishAt })
        .expect(200);
      const cancelled = await a.api.post(contentUrl(a, `/${item.id}/unpublish`));
      expect(cancelled.body).toMatchObject({ status: 'draft', publishAt: null, version: 3 });
      await eventually(
        async () => {
          const [job] = await t.db.query(
            "SELECT state FROM pgboss.job WHERE name = 'content.publish-scheduled' AND data->>'contentId' = $1",
            [String(item.id)],
          );
          return job?.state === 'completed' ? job : undefined;
        },
        15000,
        200,
      );
      expect(await row(item.id)).toMatchObject({ status: 'draft', version: 3 });
    });

    it('answers 400 for a past publishAt, 401 without a key and 404 for another site', async () => {
      const item = await makeContent(a, { title: 'Guarded' });
      const past = await a.api.post(contentUrl(a, `/${item.id}/publish`)).send({ publishAt: '2020-01-01T00:00:00Z' });
      expectProblem(past, 400, 'validation_failed');
      expect(past.body.errors).toEqual([{ path: 'publishAt', message: 'must be in the future' }]);
      const bad = await a.api.post(contentUrl(a, `/${item.id}/publish`)).send({ publishAt: 'tomorrow' });
      expectProblem(bad, 400, 'validation_failed');
      expect(bad.body.errors).toEqual([{ path: 'publishAt', message: expect.any(String) }]);
      expectProblem(
        await request(t.server)
          .post(contentUrl(a, `/${item.id}/publish`))
          .send({}),
        401,
        'missing_credential',
      );
      expectProblem(await b.api.post(contentUrl(b, `/${item.id}/publish`)).send({}), 404, 'not_found');
      expect(await row(item.id)).toMatchObject({ status: 'draft', version: 1 });
    });
  });

  describe('POST /api/v2/sites/:siteName/content/:id/unpublish', () => {
    it('takes a published item back to draft with content.unpublished', async () => {
      const item = await makeContent(a, { title: 'Retracted', status: 'published' });
      const since = await lastEventId(t);
      const res = await a.api.post(contentUrl(a, `/${item.id}/unpublish`));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...item, status: 'draft', version: 2, updatedAt: expect.any(String) });
      expect(await row(item.id)).toMatchObject({ status: 'draft', version: 2 });
      expect(await eventsOf(t, a, since)).toEqual([
        {
          name: 'content.unpublished',
          payload: { id: item.id, type: 'post', slug: 'retracted', status: 'draft', version: 2 },
        },
      ]);
      expectProblem(await request(t.server).get(contentUrl(a, `/${item.id}`)), 404, 'not_found');
    });

    it('answers 409 for a draft (row unchanged), 401 without a key and 404 for another site', async () => {
      const item = await makeContent(a, { title: 'Never out' });
      expectProblem(await a.api.post(contentUrl(a, `/${item.id}/unpublish`)), 409, 'transition_forbidden');
      expect(await row(item.id)).toMatchObject({ status: 'draft', version: 1 });
      expectProblem(await request(t.server).post(contentUrl(a, `/${item.id}/unpublish`)), 401, 'missing_credential');
      expectProblem(await b.api.post(contentUrl(b, `/${item.id}/unpublish`)), 404, 'not_found');
    });
  });
});
