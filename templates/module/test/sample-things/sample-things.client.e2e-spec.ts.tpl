import { SampleThingEntity } from '../../src/sample-things/entities/sample-thing.entity';
import { withClient } from '../support/api-client';

/** Every Sample things operation through the generated client (docs/openapi.md). */
describe('generated client: sample things', () => {
  const s = withClient(2);
  const site = () => ({ siteName: s.a.siteName });

  it('create, get by id and slug, update, list, delete', async () => {
    const created = await s.api.POST('/api/v2/sites/{siteName}/sample-things', {
      params: { path: site() },
      body: { title: 'Spring opening', status: 'published' },
    });
    expect(created.response.status).toBe(201);
    const thing = created.data!;
    expect(thing).toEqual(expect.objectContaining({ slug: 'spring-opening', status: 'published' }));
    expect(await s.t.db.getRepository(SampleThingEntity).findOneBy({ id: thing.id })).toEqual(
      expect.objectContaining({ siteId: s.a.siteId, title: 'Spring opening' }),
    );

    const byId = await s.api.GET('/api/v2/sites/{siteName}/sample-things/{id}', {
      params: { path: { ...site(), id: String(thing.id) } },
    });
    expect([byId.response.status, byId.data]).toEqual([200, thing]);
    const bySlug = await s.contract.as().GET('/api/v2/sites/{siteName}/sample-things/{id}', {
      params: { path: { ...site(), id: thing.slug } },
    });
    expect([bySlug.response.status, bySlug.data]).toEqual([200, thing]);

    const updated = await s.api.PATCH('/api/v2/sites/{siteName}/sample-things/{id}', {
      params: { path: { ...site(), id: thing.id } },
      body: { body: 'Doors open at ten.' },
    });
    expect([updated.response.status, updated.data?.body]).toEqual([200, 'Doors open at ten.']);

    const list = await s.api.GET('/api/v2/sites/{siteName}/sample-things', {
      params: { path: site(), query: { status: 'published' } },
    });
    expect([list.response.status, list.data!.data.map((x) => x.id)]).toEqual([200, [thing.id]]);

    const deleted = await s.api.DELETE('/api/v2/sites/{siteName}/sample-things/{id}', {
      params: { path: { ...site(), id: thing.id } },
    });
    expect(deleted.response.status).toBe(204);
    expect(await s.t.db.getRepository(SampleThingEntity).findOneBy({ id: thing.id })).toBeNull();
  });

  it('calls every operation of its tag', () => {
    expect(s.contract.uncalled(['Sample things'])).toEqual([]);
  });
});
