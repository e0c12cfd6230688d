import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AccountDeletionEntity } from '../../src/account/entities/account-deletion.entity';
import { MediaItemEntity } from '../../src/media/entities/media-item.entity';
import { MediaCategoryEntity, MediaTagEntity } from '../../src/media/entities/media-term.entity';
import { MediaFilesJob } from '../../src/media/media-files.job';
import { MediaStorage } from '../../src/media/storage/media-storage';
import { eventually, startApp, TestApp } from '../support/app';
import { createTenant, Tenant } from '../support/tenant';
import { makePdf, makePng, tempMediaDir } from '../support/files';

describe('account deletion covers media rows and stored files', () => {
  let t: TestApp;
  const media = tempMediaDir('deletion');

  const leftovers = { old: join(media.dir, '.tmp', 'crashed-upload'), fresh: join(media.dir, '.tmp', 'in-progress') };

  beforeAll(async () => {
    // What a crashed instance leaves in the spool folder, and what another one is still writing.
    mkdirSync(join(media.dir, '.tmp'));
    writeFileSync(leftovers.old, 'x');
    writeFileSync(leftovers.fresh, 'y');
    const hoursAgo = (h: number) => new Date(Date.now() - h * 3600 * 1000);
    utimesSync(leftovers.old, hoursAgo(7), hoursAgo(7));
    t = await startApp({
      env: { MEDIA_LOCAL_DIR: media.dir, MEDIA_THUMBNAIL_WIDTHS: '16,32', ACCOUNT_DELETION_GRACE_SECONDS: '0' },
    });
  });
  afterAll(async () => {
    try {
      await t?.close();
    } finally {
      media.remove();
    }
  });

  async function seed(x: Tenant): Promise<string[]> {
    const base = `/api/v2/sites/${x.siteName}/media`;
    expect((await x.api.post(base).attach('file', await makePng(64, 64), 'a.png')).status).toBe(201);
    expect((await x.api.post(base).attach('file', makePdf(), 'b.pdf')).status).toBe(201);
    expect((await x.api.post(`${base}/categories`).send({ name: 'Cat' })).status).toBe(201);
    expect((await x.api.post(`${base}/tags`).send({ name: 'Tag' })).status).toBe(201);
    return (await t.db.getRepository(MediaItemEntity).findBy({ siteId: x.siteId })).map((r) => r.storageKey);
  }

  it('the preview counts media, and the purge deletes rows and files of that account only', async () => {
    const [x, other] = await Promise.all([createTenant(t), createTenant(t)]);
    const [keys, otherKeys] = await Promise.all([seed(x), seed(other)]);
    expect(keys).toHaveLength(4); // png + 2 thumbnails + pdf

    const preview = await x.api.get('/api/v2/account/deletion-preview');
    expect(preview.status).toBe(200);
    const impacts = preview.body.resources as Array<{ resource: string; count: number; action: string }>;
    expect(impacts.filter((i) => i.resource.startsWith('media_'))).toEqual([
      { resource: 'media_items', count: 2, action: 'delete' },
      { resource: 'media_files', count: 4, action: 'delete' },
      { resource: 'media_categories', count: 1, action: 'delete' },
      { resource: 'media_tags', count: 1, action: 'delete' },
    ]);

    const res = await x.api.delete('/api/v2/account');
    expect(res.status).toBe(202);
    const done = await eventually(async () => {
      const row = await t.db.getRepository(AccountDeletionEntity).findOneByOrFail({ id: res.body.id });
      return row.status === 'completed' ? row : undefined;
    });
    expect(done.summary).toEqual(expect.objectContaining({ media_files: 4, media_categories: 1, media_tags: 1 }));
    expect(await t.db.getRepository(MediaItemEntity).countBy({ siteId: x.siteId })).toBe(0);
    expect(await t.db.getRepository(MediaCategoryEntity).countBy({ siteId: x.siteId })).toBe(0);
    expect(await t.db.getRepository(MediaTagEntity).countBy({ siteId: x.siteId })).toBe(0);
    // Files go through the queued job.
    await eventually(async () => (keys.every((k) => !existsSync(join(media.dir, k))) ? true : undefined));

    expect(await t.db.getRepository(MediaItemEntity).countBy({ siteId: other.siteId })).toBe(4);
    for (const k of otherKeys) expect(existsSync(join(media.dir, k))).toBe(true);
  });

  it('spool files a crash left behind are removed at start; recent ones are left alone', () => {
    expect([existsSync(leftovers.old), existsSync(leftovers.fresh)]).toEqual([false, true]);
  });

  it('the file job removes only keys no row holds, and can run twice', async () => {
    const x = await createTenant(t);
    const [held] = await seed(x);
    const job = t.app.get(MediaFilesJob);
    const orphan = `sites/${x.siteId}/0123456789abcdef0123/orphan.pdf`;
    await t.app.get(MediaStorage).putBuffer(orphan, makePdf(), { contentType: 'application/pdf' });
    expect(existsSync(join(media.dir, orphan))).toBe(true);

    await job.removeUnheld([held, orphan]);
    await job.removeUnheld([held, orphan]);
    expect(existsSync(join(media.dir, orphan))).toBe(false);
    expect(existsSync(join(media.dir, held))).toBe(true);
  });
});
