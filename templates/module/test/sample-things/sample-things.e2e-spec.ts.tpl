import request from 'supertest';
import { SampleThingEntity } from '../../src/sample-things/entities/sample-thing.entity';
import { TestApp } from '../support/app';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant, withTenants } from '../support/tenant';

const url = (tenant: Tenant, rest = '') => `/api/v2/sites/${tenant.siteName}/sample-things${rest}`;

/** Sample things (docs/sample-things.md): status, body, database and events of every route, and its refusals. */
describe('sample things (v2)', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  const ctx = withTenants(2);
  beforeAll(() => {
    t = ctx.t;
    [a, b] = ctx.tenants;
  });

  const row = (id: number) => t.db.getRepository(SampleThingEntity).findOneBy({ id });
  const make = async (tenant: Tenant, body: Record<string, unknown>) => {
    const res = await tenant.api.post(url(tenant)).send(body);
    if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: number; slug: string; status: string; createdAt: string };
  };

  describe('POST …/sample-things', () => {
    it('creates a draft with a slug from the title, a Location and an event', async () => {
      const since = await lastEventId(t);
      const res = await a.api.post(url(a)).send({ title: 'Spring Opening', body: 'Doors open at ten.' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        title: 'Spring Opening',
        slug: 'spring-opening',
        body: 'Doors open at ten.',
        status: 'draft',
        publishedAt: null,
        createdAt: ISO,
        updatedAt: ISO,
      });
      expect(res.headers.location).toBe(
        `${t.configs.server.PUBLIC_BASE_URL}/api/v2/sites/${a.siteName}/sample-things/${res.body.id}`,
      );
      expect(await row(res.body.id)).toMatchObject({ siteId: a.siteId, slug: 'spring-opening', status: 'draft' });
      expect(await eventsOf(t, a, since)).toEqual([
        { name: 'sample_thing.created', payload: { id: res.body.id, slug: 'spring-opening', status: 'draft' } },
      ]);
      expect((await make(a, { title: 'Spring Opening' })).slug).toBe('spring-opening-2');
    });

    it('created published: published at now, and a published event after the created one', async () => {
      const since = await lastEventId(t);
      const made = await make(a, { title: 'Out now', status: 'published' });
      expect(await row(made.id)).toMatchObject({ status: 'published', publishedAt: expect.any(Date) });
      expect((await eventsOf(t, a, since)).map((e) => e.name)).toEqual([
        'sample_thing.created',
        'sample_thing.published',
      ]);
    });

    it('answers 409 for a slug the site has, changing nothing; another site may use it', async () => {
      await make(a, { title: 'Named', slug: 'named-slug' });
      const count = await t.db.getRepository(SampleThingEntity).countBy({ siteId: a.siteId });
      expectProblem(await a.api.post(url(a)).send({ title: 'Again', slug: 'named-slug' }), 409, 'duplicate_slug');
      expect(await t.db.getRepository(SampleThingEntity).countBy({ siteId: a.siteId })).toBe(count);
      expect((await make(b, { title: 'Named in B', slug: 'named-slug' })).slug).toBe('named-slug');
    });

    it('30 parallel creates with one explicit slug: one 201, the rest 409 duplicate_slug, one row', async () => {
      const site = await createTenant(t);
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => site.api.post(url(site)).send({ title: 'Race', slug: 'race' })),
      );
      expect(answers.map((r) => r.status).sort()).toEqual([201, ...Array(29).fill(409)]);
      expect(await t.db.getRepository(SampleThingEntity).countBy({ siteId: site.siteId, slug: 'race' })).toBe(1);
    });

    it.each([
      ['no title', {}, ['title']],
      ['an empty title', { title: '' }, ['title']],
      ['a bad slug', { title: 'x', slug: 'Bad Slug' }, ['slug']],
      ['an unknown status', { title: 'x', status: 'gone' }, ['status']],
      ['a null body', { title: 'x', body: null }, ['body']],
      ['an unknown field', { title: 'x', colour: 'red' }, ['colour']],
    ])('answers 400 for %s, creating nothing', async (_label, body, paths) => {
      const since = await lastEventId(t);
      const res = await a.api.post(url(a)).send(body);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(paths);
      expect(await eventsOf(t, a, since)).toEqual([]);
    });

    it('needs a key', async () => {
      expectProblem(await request(t.server).post(url(a)).send({ title: 'x' }), 401, 'missing_credential');
    });
  });

  describe('GET …/sample-things and …/:id', () => {
    it('lists newest first in keyset pages; anonymous callers see the published ones only', async () => {
      const site = await createTenant(t);
      const one = await make(site, { title: 'One', status: 'published' });
      await make(site, { title: 'Two' });
      const three = await make(site, { title: 'Three', status: 'published' });
      const first = await site.api.get(url(site, '?limit=2'));
      expect(first.status).toBe(200);
      expect(first.body.data.map((x: { slug: string }) => x.slug)).toEqual(['three', 'two']);
      const second = await site.api.get(url(site, `?limit=2&cursor=${first.body.pagination.nextCursor}`));
      expect(second.body).toEqual({
        data: [expect.objectContaining({ id: one.id })],
        pagination: { limit: 2, nextCursor: null },
      });
      const anonymous = await request(t.server).get(url(site));
      expect(anonymous.body.data.map((x: { id: number }) => x.id)).toEqual([three.id, one.id]);
      expect((await request(t.server).get(url(site, '?status=draft'))).body.data).toEqual([]);
      expect((await site.api.get(url(site, '?status=draft'))).body.data.map((x: { slug: string }) => x.slug)).toEqual([
        'two',
      ]);
    });

    it('filters by creation time: from inclusive, to exclusive', async () => {
      const site = await createTenant(t);
      const early = await make(site, { title: 'Early' });
      const late = await make(site, { title: 'Late' });
      const from = encodeURIComponent(late.createdAt);
      expect((await site.api.get(url(site, `?createdFrom=${from}`))).body.data.map((x: { id: number }) => x.id)).toEqual(
        [late.id],
      );
      expect((await site.api.get(url(site, `?createdTo=${from}`))).body.data.map((x: { id: number }) => x.id)).toEqual([
        early.id,
      ]);
      expectProblem(await site.api.get(url(site, '?createdFrom=yesterday')), 400, 'validation_failed');
    });

    it('gets one by id or slug; a draft is a 404 without a key; another site’s id is a 404', async () => {
      const draft = await make(a, { title: 'Hidden draft' });
      const shown = await make(a, { title: 'Shown', status: 'published' });
      expect((await a.api.get(url(a, `/${draft.id}`))).body).toEqual(draft);
      expect((await a.api.get(url(a, `/${draft.slug}`))).body).toEqual(draft);
      expect((await request(t.server).get(url(a, `/${shown.slug}`))).body).toEqual(shown);
      expectProblem(await request(t.server).get(url(a, `/${draft.id}`)), 404, 'not_found');
      expectProblem(await request(t.server).get(url(a, `/${draft.slug}`)), 404, 'not_found');
      expectProblem(await b.api.get(url(b, `/${draft.id}`)), 404, 'not_found');
      expectProblem(await b.api.get(url(b, `/${shown.slug}`)), 404, 'not_found');
    });
  });

  describe('PATCH …/sample-things/:id', () => {
    it('updates fields, publishes once, and records its events', async () => {
      const made = await make(a, { title: 'Editable' });
      const since = await lastEventId(t);
      const res = await a.api.patch(url(a, `/${made.id}`)).send({ title: 'Edited', status: 'published' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...made, title: 'Edited', status: 'published', publishedAt: ISO, updatedAt: ISO });
      expect(await row(made.id)).toMatchObject({ title: 'Edited', status: 'published', slug: 'editable' });
      const payload = { id: made.id, slug: 'editable', status: 'published' };
      expect(await eventsOf(t, a, since)).toEqual([
        { name: 'sample_thing.updated', payload },
        { name: 'sample_thing.published', payload },
      ]);
      const again = await lastEventId(t);
      await a.api.patch(url(a, `/${made.id}`)).send({ body: 'More' }).expect(200);
      expect((await eventsOf(t, a, again)).map((e) => e.name)).toEqual(['sample_thing.updated']);
    });

    it('answers 400 for null or a bad status, 409 for a taken slug, changing nothing', async () => {
      const taken = await make(a, { title: 'Taken' });
      const made = await make(a, { title: 'Mover' });
      expectProblem(await a.api.patch(url(a, `/${made.id}`)).send({ title: null }), 400, 'validation_failed');
      expectProblem(await a.api.patch(url(a, `/${made.id}`)).send({ status: 'gone' }), 400, 'validation_failed');
      expectProblem(await a.api.patch(url(a, `/${made.id}`)).send({ slug: taken.slug }), 409, 'duplicate_slug');
      expect(await row(made.id)).toMatchObject({ title: 'Mover', slug: 'mover', status: 'draft' });
    });

    it('another site’s key gets a 404 and changes nothing; without a key a 401', async () => {
      const made = await make(a, { title: 'Mine' });
      expectProblem(await b.api.patch(url(b, `/${made.id}`)).send({ title: 'Theirs' }), 404, 'not_found');
      expectProblem(await b.api.patch(url(a, `/${made.id}`)).send({ title: 'Theirs' }), 404, 'site_not_found');
      expectProblem(await request(t.server).patch(url(a, `/${made.id}`)).send({ title: 'x' }), 401, 'missing_credential');
      expect(await row(made.id)).toMatchObject({ title: 'Mine' });
    });
  });

  // @if lifecycle
  describe('the lifecycle', () => {
    it('archives with an event; an archived one goes back through draft, and a refused move is a 409 changing nothing', async () => {
      const made = await make(a, { title: 'Seasonal', status: 'published' });
      const since = await lastEventId(t);
      await a.api.patch(url(a, `/${made.id}`)).send({ status: 'archived' }).expect(200);
      expect((await eventsOf(t, a, since)).map((e) => e.name)).toEqual(['sample_thing.updated', 'sample_thing.archived']);
      expectProblem(await request(t.server).get(url(a, `/${made.slug}`)), 404, 'not_found');
      const refused = await lastEventId(t);
      const res = await a.api.patch(url(a, `/${made.id}`)).send({ status: 'published', title: 'Back' });
      expectProblem(res, 409, 'transition_forbidden');
      expect(res.body.detail).toBe('This sample thing is archived: it cannot become published (sample-thing-lifecycle.ts)');
      expect(await row(made.id)).toMatchObject({ status: 'archived', title: 'Seasonal' });
      expect(await eventsOf(t, a, refused)).toEqual([]);
      await a.api.patch(url(a, `/${made.id}`)).send({ status: 'draft' }).expect(200);
      await a.api.patch(url(a, `/${made.id}`)).send({ status: 'published' }).expect(200);
      expect(await row(made.id)).toMatchObject({ status: 'published' });
    });
  });

  // @end
  describe('DELETE …/sample-things/:id', () => {
    it('deletes it with an event; a second delete and another site are 404s', async () => {
      const made = await make(a, { title: 'Doomed' });
      expectProblem(await b.api.delete(url(b, `/${made.id}`)), 404, 'not_found');
      const since = await lastEventId(t);
      await a.api.delete(url(a, `/${made.id}`)).expect(204);
      expect(await row(made.id)).toBeNull();
      expect(await eventsOf(t, a, since)).toEqual([
        { name: 'sample_thing.deleted', payload: { id: made.id, slug: 'doomed', status: 'draft' } },
      ]);
      expectProblem(await a.api.delete(url(a, `/${made.id}`)), 404, 'not_found');
    });
  });
});
