import { installShapedReads, SHAPED_READS } from '../../src/common/internals/shaped-read';
import { ContentItemEntity } from '../../src/content/entities/content-item.entity';
import { ShapedReads } from '../../src/database/fast-read';
import { startApp, TestApp } from '../support/app';
import { createTenant, Tenant } from '../support/tenant';

/** ShapedReads must read exactly what TypeORM's own hydration reads, from any shape it keeps. */
describe('ShapedReads (the hot-path read)', () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    // The fast path is what is tested here, even in a run with the fast paths off.
    t = await startApp({ env: { FAST_PATHS: 'true' } });
    a = await createTenant(t);
    const bodies = [
      {
        title: 'Full',
        content: '<p>x</p>',
        tags: ['a', 'b'],
        categories: ['c'],
        authors: [{ id: 7, name: 'Ada' }],
        customFields: { n: 1, s: 'x' },
      },
      { title: 'Bare' },
      { title: 'Published', status: 'published' },
    ];
    for (const body of bodies)
      expect((await a.api.post(`/api/v2/sites/${a.siteName}/content`).send(body)).status).toBe(201);
  });
  afterAll(() => t.close());

  const repo = () => t.db.getRepository(ContentItemEntity);
  const build = () => repo().createQueryBuilder('c').where('c.site_id = :siteId').orderBy('c.id', 'ASC');
  /** Published items, or every item: the kind of branch whose flag, forgotten, leaks drafts. */
  const buildItems = (s: { published: boolean }) => {
    const qb = build();
    if (s.published) qb.andWhere("c.status = 'published'");
    return qb;
  };

  it('reads the same entities as getMany: ids, arrays, jsonb, nulls and dates, as entity instances', async () => {
    const reads = new ShapedReads<ContentItemEntity>();
    const expected = await build().setParameters({ siteId: a.siteId }).getMany();
    const { entities } = await reads.read({}, { siteId: a.siteId }, build);
    expect(expected).toHaveLength(3);
    expect(entities).toEqual(expected);
    expect(entities[0]).toBeInstanceOf(ContentItemEntity);
    expect(typeof entities[0].id).toBe('number');
    expect(entities[1].publishedAt).toBeNull();
    expect(entities[2].publishedAt).toBeInstanceOf(Date);
  });

  it("keeps the SQL of a shape and binds each call's own parameters", async () => {
    const b = await createTenant(t);
    expect((await b.api.post(`/api/v2/sites/${b.siteName}/content`).send({ title: 'Other site' })).status).toBe(201);
    const reads = new ShapedReads<ContentItemEntity>({ verify: false });
    const first = await reads.read({}, { siteId: a.siteId }, build);
    const built = jest.fn(build);
    const second = await reads.read({}, { siteId: b.siteId }, built);
    expect(built).not.toHaveBeenCalled();
    expect(first.entities.map((e) => e.title)).toEqual(['Full', 'Bare', 'Published']);
    expect(second.entities.map((e) => e.title)).toEqual(['Other site']);
  });

  it('gives extra selected values by name, and maps database errors like any query', async () => {
    const withTotal = await new ShapedReads<ContentItemEntity>().read({}, { siteId: a.siteId }, () =>
      build().addSelect('count(*) OVER ()', 'total'),
    );
    expect(Number(withTotal.extra(0, 'total'))).toBe(3);
    await expect(
      new ShapedReads<ContentItemEntity>().read({}, { siteId: 'not a number' }, build),
    ).rejects.toMatchObject({
      name: 'QueryFailedError',
      driverError: expect.objectContaining({ code: '22P02' }),
    });
  });

  it('builds each shape its own SQL: two shapes never share one, the same fields in any order are one', async () => {
    const reads = new ShapedReads<ContentItemEntity>({ verify: false });
    const built = jest.fn((s: { published: boolean; limit: number }) => buildItems(s).limit(s.limit));
    const all = await reads.read({ published: false, limit: 10 }, { siteId: a.siteId }, built);
    const published = await reads.read({ published: true, limit: 10 }, { siteId: a.siteId }, built);
    expect(all.entities.map((e) => e.title)).toEqual(['Full', 'Bare', 'Published']);
    expect(published.entities.map((e) => e.title)).toEqual(['Published']);
    expect(built.mock.calls.map(([s]) => s)).toEqual([
      { published: false, limit: 10 },
      { published: true, limit: 10 },
    ]);
    const again = await reads.read({ limit: 10, published: true }, { siteId: a.siteId }, built);
    expect(again.entities.map((e) => e.title)).toEqual(['Published']);
    expect(built).toHaveBeenCalledTimes(2);
    await expect(reads.read({ published: undefined } as never, { siteId: a.siteId }, built)).rejects.toThrow(
      'shape field "published" is undefined',
    );
  });

  describe('the plain path (FAST_PATHS=false, or the fence does not hold)', () => {
    // Without verification, a read builds its query only on the plain path (or a shape's first read).
    const withTotal = jest.fn(() => build().addSelect('count(*) OVER ()', 'total'));
    const built = jest.fn(build);
    beforeEach(() => jest.clearAllMocks());

    it('reads with TypeORM every time, the same entities and extra values', async () => {
      const fast = await new ShapedReads<ContentItemEntity>().read({}, { siteId: a.siteId }, withTotal);
      const reads = new ShapedReads<ContentItemEntity>({ plain: true, verify: false });
      for (let i = 0; i < 2; i++) {
        const read = await reads.read({}, { siteId: a.siteId }, withTotal);
        expect(read.entities).toEqual(fast.entities);
        expect(read.entities[0]).toBeInstanceOf(ContentItemEntity);
        expect(read.entities.map((_e, row) => read.extra(row, 'total'))).toEqual(['3', '3', '3']);
      }
      expect(withTotal).toHaveBeenCalledTimes(3);
      await expect(reads.read({}, { siteId: 'not a number' }, build)).rejects.toMatchObject({
        name: 'QueryFailedError',
        driverError: expect.objectContaining({ code: '22P02' }),
      });
    });

    it('is taken by the readers of a data source with FAST_PATHS off or its fence broken (one warning)', async () => {
      const warn = jest.fn();
      const older = (pkg: string) => (pkg === 'typeorm' ? '0.3.20' : SHAPED_READS.writtenFor[pkg]);
      const reads = new ShapedReads<ContentItemEntity>({ verify: false });
      const titles = async () => (await reads.read({}, { siteId: a.siteId }, built)).entities.map((e) => e.title);
      expect(await titles()).toEqual(['Full', 'Bare', 'Published']);
      expect(installShapedReads(t.db, { FAST_PATHS: true }, warn, older)).toBe(false);
      try {
        expect(warn).toHaveBeenCalledWith(SHAPED_READS, { typeorm: '0.3.20' });
        expect(await titles()).toEqual(['Full', 'Bare', 'Published']);
        expect(built).toHaveBeenCalledTimes(2);
        expect(installShapedReads(t.db, { FAST_PATHS: false }, warn)).toBe(false);
        expect(await titles()).toEqual(['Full', 'Bare', 'Published']);
        expect(built).toHaveBeenCalledTimes(3);
      } finally {
        expect(installShapedReads(t.db, t.configs.http, warn)).toBe(true);
      }
      // Back on: the SQL kept for the shape runs again, unbuilt.
      expect(await titles()).toEqual(['Full', 'Bare', 'Published']);
      expect(built).toHaveBeenCalledTimes(3);
      expect(warn).toHaveBeenCalledTimes(1);
    });
  });

  describe('verification (on in tests: NODE_ENV=test)', () => {
    /** A builder that branches on a value its shape does not hold: the bug verification is for. */
    const readItems = (reads: ShapedReads<ContentItemEntity>, published: boolean) =>
      reads.read({ order: 'id' }, { siteId: a.siteId }, () => buildItems({ published }));

    it('fails a read whose builder branches on something outside its shape, naming the shape', async () => {
      const reads = new ShapedReads<ContentItemEntity>();
      expect((await readItems(reads, true)).entities.map((e) => e.title)).toEqual(['Published']);
      const error = await readItems(reads, false).catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(
        /^ShapedReads: shape \{"order":"id"\} built other SQL than the SQL kept/,
      );
      expect((error as Error).message).toMatch(
        /\nkept: .* WHERE "c"."site_id" = \$1 AND "c"."status" = 'published' ORDER/,
      );
      expect((error as Error).message).toMatch(/\nbuilt: .* WHERE "c"."site_id" = \$1 ORDER/);
    });

    it('is what stands between such a builder and the wrong rows: without it, drafts read as published', async () => {
      const reads = new ShapedReads<ContentItemEntity>({ verify: false });
      await readItems(reads, true);
      // Asked for every item, the read runs the SQL kept for its shape: published only.
      expect((await readItems(reads, false)).entities.map((e) => e.title)).toEqual(['Published']);
    });

    it('builds again on every read, and passes a builder that branches on its shape only', async () => {
      const reads = new ShapedReads<ContentItemEntity>();
      const built = jest.fn(buildItems);
      for (const published of [true, false, true, false]) await reads.read({ published }, { siteId: a.siteId }, built);
      expect(built).toHaveBeenCalledTimes(4);
    });
  });
});
