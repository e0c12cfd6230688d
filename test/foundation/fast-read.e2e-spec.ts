import { ContentItemEntity } from '../../src/content/entities/content-item.entity';
import { ShapedReads } from '../../src/database/fast-read';
import { startApp, TestApp } from '../support/app';
import { createTenant, Tenant } from '../support/tenant';

/** ShapedReads must read exactly what TypeORM's own hydration reads, from any shape it keeps. */
describe('ShapedReads (the hot-path read)', () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    t = await startApp();
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

  it('reads the same entities as getMany: ids, arrays, jsonb, nulls and dates, as entity instances', async () => {
    const reads = new ShapedReads<ContentItemEntity>();
    const expected = await build().setParameters({ siteId: a.siteId }).getMany();
    const { entities } = await reads.read('all', { siteId: a.siteId }, build);
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
    const reads = new ShapedReads<ContentItemEntity>();
    const first = await reads.read('by-site', { siteId: a.siteId }, build);
    const built = jest.fn(build);
    const second = await reads.read('by-site', { siteId: b.siteId }, built);
    expect(built).not.toHaveBeenCalled();
    expect(first.entities.map((e) => e.title)).toEqual(['Full', 'Bare', 'Published']);
    expect(second.entities.map((e) => e.title)).toEqual(['Other site']);
  });

  it('gives extra selected values by name, and maps database errors like any query', async () => {
    const reads = new ShapedReads<ContentItemEntity>();
    const withTotal = await reads.read('total', { siteId: a.siteId }, () =>
      build().addSelect('count(*) OVER ()', 'total'),
    );
    expect(Number(withTotal.extra(0, 'total'))).toBe(3);
    await expect(reads.read('bad', { siteId: 'not a number' }, build)).rejects.toMatchObject({
      name: 'QueryFailedError',
      driverError: expect.objectContaining({ code: '22P02' }),
    });
  });
});
