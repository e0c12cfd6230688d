import request from 'supertest';
import { CollectionEntity } from '../../src/collections/entities/collection.entity';
import { TestApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant, withTenants } from '../support/tenant';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';

const url = (tenant: Tenant, rest = '') => `/api/v2/sites/${tenant.siteName}/collections${rest}`;
const hoursFromNow = (h: number) => new Date(Date.now() + h * 3600_000).toISOString();

describe('collections (v2)', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  const ctx = withTenants(2);
  beforeAll(() => {
    t = ctx.t;
    [a, b] = ctx.tenants;
  });

  const row = (id: number) => t.db.getRepository(CollectionEntity).findOneBy({ id });
  const make = async (tenant: Tenant, body: Record<string, unknown>) => {
    const res = await tenant.api.post(url(tenant)).send(body);
    if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: number; slug: string; pinned: boolean };
  };

  describe('POST /api/v2/sites/:siteName/collections', () => {
    it('creates a collection with a generated slug, a Location and an event', async () => {
      const since = await lastEventId(t);
      const res = await a.api.post(url(a)).send({
        name: 'Summer Picks',
        description: 'Best of summer',
        startsAt: '2026-06-01T00:00:00.000Z',
        endsAt: '2026-09-01T00:00:00.000Z',
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'Summer Picks',
        slug: 'summer-picks',
        description: 'Best of summer',
        startsAt: '2026-06-01T00:00:00.000Z',
        endsAt: '2026-09-01T00:00:00.000Z',
        pinned: false,
        createdAt: ISO,
        updatedAt: ISO,
      });
      expect(res.headers.location).toBe(
        `${t.configs.server.PUBLIC_BASE_URL}/api/v2/sites/${a.siteName}/collections/${res.body.id}`,
      );
      expect(await row(res.body.id)).toMatchObject({ siteId: a.siteId, slug: 'summer-picks' });
      expect(await eventsOf(t, a, since)).toEqual([
        { name: 'collection.created', payload: { id: res.body.id, slug: 'summer-picks' } },
      ]);
      expect((await make(a, { name: 'Summer Picks' })).slug).toBe('summer-picks-2');
    });

    it('answers 409 for a slug the site has; another site may use it', async () => {
      await make(a, { name: 'Named', slug: 'named-slug' });
      expectProblem(await a.api.post(url(a)).send({ name: 'Again', slug: 'named-slug' }), 409, 'duplicate_slug');
      expect((await make(b, { name: 'Named in B', slug: 'named-slug' })).slug).toBe('named-slug');
    });

    it.each([
      ['no name', {}, ['name']],
      ['an end without a start', { name: 'x', endsAt: '2026-01-01T00:00:00Z' }, ['endsAt']],
      [
        'an end before the start',
        { name: 'x', startsAt: '2026-02-01T00:00:00Z', endsAt: '2026-01-01T00:00:00Z' },
        ['endsAt'],
      ],
      ['a bad slug', { name: 'x', slug: 'Bad Slug' }, ['slug']],
      ['a non-boolean pinned', { name: 'x', pinned: 'yes' }, ['pinned']],
      ['an unknown field', { name: 'x', items: [] }, ['items']],
    ])('answers 400 for %s', async (_label, body, paths) => {
      const res = await a.api.post(url(a)).send(body);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(paths);
    });

    it('needs a key', async () => {
      expectProblem(await request(t.server).post(url(a)).send({ name: 'x' }), 401, 'missing_credential');
    });
  });

  describe('GET /api/v2/sites/:siteName/collections and /:id', () => {
    it('lists newest first in keyset pages, anonymously too', async () => {
      const site = await createTenant(t);
      const made = [
        await make(site, { name: 'One' }),
        await make(site, { name: 'Two' }),
        await make(site, { name: 'Three' }),
      ];
      const first = await request(t.server).get(url(site, '?limit=2'));
      expect(first.status).toBe(200);
      expect(first.body.data.map((c: { slug: string }) => c.slug)).toEqual(['three', 'two']);
      const second = await request(t.server).get(url(site, `?limit=2&cursor=${first.body.pagination.nextCursor}`));
      expect(second.body).toEqual({
        data: [expect.objectContaining({ id: made[0].id, slug: 'one' })],
        pagination: { limit: 2, nextCursor: null },
      });
    });

    it("gets one by id; another site's id is a 404", async () => {
      const c = await make(a, { name: 'Fetched' });
      const res = await request(t.server).get(url(a, `/${c.id}`));
      expect(res.status).toBe(200);
      expect(res.body).toEqual(c);
      expectProblem(await request(t.server).get(url(b, `/${c.id}`)), 404, 'not_found');
      expectProblem(await request(t.server).get(url(a, '/abc')), 400, 'validation_failed');
    });
  });

  describe('GET /api/v2/sites/:siteName/collections/current', () => {
    it('is a 404 when nothing is pinned or running', async () => {
      const site = await createTenant(t);
      await make(site, { name: 'No window' });
      await make(site, { name: 'Future', startsAt: hoursFromNow(1) });
      await make(site, { name: 'Past', startsAt: hoursFromNow(-3), endsAt: hoursFromNow(-1) });
      expectProblem(await request(t.server).get(url(site, '/current')), 404, 'not_found');
    });

    it('is the running window that started last, then the pinned one above all', async () => {
      const site = await createTenant(t);
      await make(site, { name: 'Long running', startsAt: hoursFromNow(-48) });
      const recent = await make(site, { name: 'Recent', startsAt: hoursFromNow(-1), endsAt: hoursFromNow(5) });
      await make(site, { name: 'Upcoming', startsAt: hoursFromNow(2) });
      const current = await request(t.server).get(url(site, '/current'));
      expect(current.status).toBe(200);
      expect(current.body.id).toBe(recent.id);

      const pinned = await make(site, { name: 'Pinned', pinned: true });
      expect((await request(t.server).get(url(site, '/current'))).body.id).toBe(pinned.id);
    });

    it('pinning another collection unpins the first', async () => {
      const site = await createTenant(t);
      const first = await make(site, { name: 'First pin', pinned: true });
      const second = await make(site, { name: 'Second' });
      const since = await lastEventId(t);
      const res = await site.api.patch(url(site, `/${second.id}`)).send({ pinned: true });
      expect(res.body.pinned).toBe(true);
      expect(await row(first.id)).toMatchObject({ pinned: false });
      expect((await request(t.server).get(url(site, '/current'))).body.id).toBe(second.id);
      expect((await eventsOf(t, site, since)).map((e) => [e.name, e.payload.id])).toEqual([
        ['collection.updated', first.id],
        ['collection.updated', second.id],
      ]);
    });
  });

  describe('PATCH /api/v2/sites/:siteName/collections/:id', () => {
    it('updates fields, clears the window with null, and records an event', async () => {
      const c = await make(a, {
        name: 'Editable',
        startsAt: '2026-01-01T00:00:00.000Z',
        endsAt: '2026-02-01T00:00:00.000Z',
      });
      const since = await lastEventId(t);
      const res = await a.api
        .patch(url(a, `/${c.id}`))
        .send({ name: 'Edited', description: 'Now with text', startsAt: null, endsAt: null });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...c,
        name: 'Edited',
        description: 'Now with text',
        startsAt: null,
        endsAt: null,
        updatedAt: ISO,
      });
      expect(await row(c.id)).toMatchObject({ name: 'Edited', startsAt: null, endsAt: null, slug: 'editable' });
      expect(await eventsOf(t, a, since)).toEqual([
        { name: 'collection.updated', payload: { id: c.id, slug: 'editable' } },
      ]);
    });

    it('answers 400 for a window that would end before it starts, leaving the row', async () => {
      const c = await make(a, { name: 'Windowed', startsAt: '2026-03-01T00:00:00.000Z' });
      const res = await a.api.patch(url(a, `/${c.id}`)).send({ endsAt: '2026-02-01T00:00:00.000Z' });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([{ path: 'endsAt', message: 'must be after startsAt' }]);
      const nullName = await a.api.patch(url(a, `/${c.id}`)).send({ name: null });
      expectProblem(nullName, 400, 'validation_failed');
      expect(await row(c.id)).toMatchObject({ name: 'Windowed', endsAt: null });
    });

    it('answers 409 for a taken slug, 404 for another site, 401 without a key', async () => {
      const taken = await make(a, { name: 'Taken' });
      const c = await make(a, { name: 'Mover' });
      expectProblem(await a.api.patch(url(a, `/${c.id}`)).send({ slug: taken.slug }), 409, 'duplicate_slug');
      expectProblem(await b.api.patch(url(b, `/${c.id}`)).send({ name: 'x' }), 404, 'not_found');
      expectProblem(
        await request(t.server)
          .patch(url(a, `/${c.id}`))
          .send({ name: 'x' }),
        401,
        'missing_credential',
      );
      expect(await row(c.id)).toMatchObject({ name: 'Mover', slug: 'mover' });
    });
  });

  describe('DELETE /api/v2/sites/:siteName/collections/:id', () => {
    it('deletes with an event; another site or no key cannot', async () => {
      const c = await make(a, { name: 'Short lived' });
      expectProblem(await b.api.delete(url(b, `/${c.id}`)), 404, 'not_found');
      expectProblem(await request(t.server).delete(url(a, `/${c.id}`)), 401, 'missing_credential');
      const since = await lastEventId(t);
      const res = await a.api.delete(url(a, `/${c.id}`));
      expect(res.status).toBe(204);
      expect(await row(c.id)).toBeNull();
      expect(await eventsOf(t, a, since)).toEqual([
        { name: 'collection.deleted', payload: { id: c.id, slug: 'short-lived' } },
      ]);
      expectProblem(await a.api.delete(url(a, `/${c.id}`)), 404, 'not_found');
    });
  });
});
