import { AccountDeletionEntity } from '../../src/account/entities/account-deletion.entity';
import { eventually, startApp, TestApp } from '../support/app';
import { createTenant, Tenant } from '../support/tenant';
import { contentUrl, makeContent } from '../support/factories';

/** API.md §8: deleting an account covers its content, revisions, collections and their items. */
describe('account deletion of content and collections', () => {
  let t: TestApp;
  let x: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    t = await startApp({ env: { ACCOUNT_DELETION_GRACE_SECONDS: '0' } });
    [x, other] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(() => t.close());

  const counts = async (siteId: number) => {
    const [row] = await t.db.query(
      `SELECT (SELECT count(*) FROM content_items WHERE site_id = $1)::int AS items,
              (SELECT count(*) FROM content_revisions WHERE site_id = $1)::int AS revisions,
              (SELECT count(*) FROM collections WHERE site_id = $1)::int AS collections,
              (SELECT count(*) FROM collection_items WHERE site_id = $1)::int AS "collectionItems"`,
      [siteId],
    );
    return row;
  };

  async function fill(tenant: Tenant) {
    const one = await makeContent(tenant, { title: 'One' });
    const two = await makeContent(tenant, { title: 'Two', status: 'published' });
    await tenant.api
      .patch(contentUrl(tenant, `/${one.id}`))
      .send({ title: 'One edited' })
      .expect(200);
    const cid = (
      await tenant.api.post(`/api/v2/sites/${tenant.siteName}/collections`).send({ name: 'Box' }).expect(201)
    ).body.id;
    await tenant.api
      .post(`/api/v2/sites/${tenant.siteName}/collections/${cid}/items`)
      .send({ contentId: two.id })
      .expect(201);
  }

  it('previews the counts, then the purge removes them and leaves other accounts alone', async () => {
    await fill(x);
    await fill(other);
    const preview = await x.api.get('/api/v2/account/deletion-preview');
    expect(preview.status).toBe(200);
    expect(preview.body.resources).toEqual(
      expect.arrayContaining([
        { resource: 'content_items', count: 2, action: 'delete' },
        { resource: 'content_revisions', count: 3, action: 'delete' },
        { resource: 'collections', count: 1, action: 'delete' },
        { resource: 'collection_items', count: 1, action: 'delete' },
      ]),
    );

    const res = await x.api.delete('/api/v2/account');
    expect(res.status).toBe(202);
    const done = await eventually(async () => {
      const row = await t.db.getRepository(AccountDeletionEntity).findOneByOrFail({ id: res.body.id });
      return row.status === 'completed' ? row : undefined;
    });
    expect(done.summary).toMatchObject({ content_items: 2, content_revisions: 3, collections: 1, collection_items: 1 });
    expect(await counts(x.siteId)).toEqual({ items: 0, revisions: 0, collections: 0, collectionItems: 0 });
    expect(await counts(other.siteId)).toEqual({ items: 2, revisions: 3, collections: 1, collectionItems: 1 });
  });
});
