import request from 'supertest';
import { ProductCategoryEntity } from '../../src/catalog/entities/product-category.entity';
import { ProductEntity } from '../../src/catalog/entities/product.entity';
import { snapshotDatabase } from '../support/db-snapshot';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { Tenant, withTenants } from '../support/tenant';

describe('/api/v2/sites/:siteName/categories', () => {
  const ctx = withTenants(2);
  let a: Tenant;
  let b: Tenant;
  const url = (x: Tenant, rest = '') => `/api/v2/sites/${x.siteName}/categories${rest}`;
  const rows = () => ctx.t.db.getRepository(ProductCategoryEntity);

  beforeAll(() => {
    [a, b] = ctx.tenants;
  });

  it('creates a category: 201, Location, the row and category.created', async () => {
    const after = await lastEventId(ctx.t);
    const res = await a.api
      .post(url(a))
      .send({ name: 'Mugs & Cups', description: 'Stoneware', position: 2 })
      .expect(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'Mugs & Cups',
      slug: 'mugs-and-cups',
      slugPrefix: '',
      description: 'Stoneware',
      position: 2,
      attachmentIds: [],
      createdAt: ISO,
      updatedAt: ISO,
    });
    expect(res.headers.location).toMatch(new RegExp(`/api/v2/sites/${a.siteName}/categories/${res.body.id}$`));
    expect(await rows().findOneByOrFail({ id: res.body.id })).toEqual(
      expect.objectContaining({ siteId: a.siteId, slug: 'mugs-and-cups', position: 2 }),
    );
    expect((await eventsOf(ctx.t, a, after)).map((e) => [e.name, e.payload])).toEqual([
      ['category.created', { id: res.body.id, slug: 'mugs-and-cups' }],
    ]);
  });

  it('makes slugs with a prefix and the next free -N; an explicit slug taken is a 409', async () => {
    const one = await a.api.post(url(a)).send({ name: 'Plates', slugPrefix: 'shop' }).expect(201);
    const two = await a.api.post(url(a)).send({ name: 'Plates', slugPrefix: 'shop' }).expect(201);
    expect([one.body.slug, two.body.slug, two.body.slugPrefix]).toEqual(['shop-plates', 'shop-plates-2', 'shop']);
    expectProblem(await a.api.post(url(a)).send({ name: 'Other', slug: 'shop-plates' }), 409, 'duplicate_slug');
    // Another site may use the same slug.
    await b.api.post(url(b)).send({ name: 'Plates', slug: 'shop-plates' }).expect(201);
  });

  it('refuses bad input with 400 naming the field, and stores nothing', async () => {
    const before = await snapshotDatabase(ctx.t.db);
    for (const [body, path] of [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'X', slug: 'Not A Slug' }, 'slug'],
      [{ name: 'X', slug: '123' }, 'slug'],
      [{ name: 'X', position: 1.5 }, 'position'],
      [{ name: 'X', attachmentIds: [999999] }, 'attachmentIds'],
      [{ name: 'X', extra: 1 }, 'extra'],
    ] as const) {
      const res = await a.api.post(url(a)).send(body);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
  });

  it('lists by position then id, keyset-paginated, to anyone', async () => {
    const x = ctx.tenants[1];
    for (const [name, position] of [
      ['Third', 3],
      ['First', 1],
      ['Second', 2],
    ] as const)
      await x.api.post(url(x)).send({ name, position }).expect(201);
    const anonymous = request(ctx.t.server);
    const first = await anonymous.get(`${url(x)}?limit=2`).expect(200);
    const names = first.body.data.map((c: { name: string }) => c.name);
    expect(names).toEqual(['Plates', 'First']);
    const next = await anonymous.get(`${url(x)}?limit=2&cursor=${first.body.pagination.nextCursor}`).expect(200);
    expect(next.body.data.map((c: { name: string }) => c.name)).toEqual(['Second', 'Third']);
    expect(next.body.pagination.nextCursor).toBeNull();
    expectProblem(await anonymous.get(`${url(x)}?cursor=bad`), 400, 'invalid_cursor');
  });

  it('gets, updates and deletes; products of a deleted category stay, without it', async () => {
    const id = (await a.api.post(url(a)).send({ name: 'Bowls' }).expect(201)).body.id as number;
    const product = await a.api
      .post(`/api/v2/sites/${a.siteName}/products`)
      .send({ name: 'Bowl', unitAmount: 900, currency: 'EUR', categoryId: id })
      .expect(201);
    await request(ctx.t.server)
      .get(url(a, `/${id}`))
      .expect(200);
    const after = await lastEventId(ctx.t);
    const updated = await a.api
      .patch(url(a, `/${id}`))
      .send({ name: 'Deep bowls', slug: 'deep-bowls' })
      .expect(200);
    expect(updated.body).toEqual(expect.objectContaining({ id, name: 'Deep bowls', slug: 'deep-bowls' }));
    await a.api.delete(url(a, `/${id}`)).expect(204);
    expect(await rows().findOneBy({ id })).toBeNull();
    expect(
      (await ctx.t.db.getRepository(ProductEntity).findOneByOrFail({ id: product.body.id })).categoryId,
    ).toBeNull();
    expect((await eventsOf(ctx.t, a, after)).map((e) => e.name)).toEqual(['category.updated', 'category.deleted']);
    expectProblem(await a.api.get(url(a, `/${id}`)), 404, 'not_found');
  });

  it("another site's category is a 404; writes need a key", async () => {
    const id = (await a.api.post(url(a)).send({ name: 'Mine' }).expect(201)).body.id as number;
    expectProblem(await b.api.get(url(b, `/${id}`)), 404, 'not_found');
    expectProblem(await b.api.patch(url(b, `/${id}`)).send({ name: 'Theirs' }), 404, 'not_found');
    expectProblem(await b.api.delete(url(b, `/${id}`)), 404, 'not_found');
    expectProblem(await request(ctx.t.server).post(url(a)).send({ name: 'X' }), 401, 'missing_credential');
    expectProblem(await request(ctx.t.server).delete(url(a, `/${id}`)), 401, 'missing_credential');
    expect((await rows().findOneByOrFail({ id })).name).toBe('Mine');
  });
});
