import { ContentItemEntity } from '../../src/content/entities/content-item.entity';
import { startApp, TestApp } from '../support/app';
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
    t = await startApp({ env: { MEDIA_LOCAL_DIR: media.dir } });
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
});
