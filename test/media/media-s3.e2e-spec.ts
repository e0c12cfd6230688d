import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { MediaItemEntity } from '../../src/media/entities/media-item.entity';
import { startApp, TestApp } from '../support/app';
import { freePort } from '../support/databases';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';
import { binary, makePng, pathOf, tempMediaDir } from '../support/files';

// s3rver ships no types; this is the part the test uses.
const S3rver: new (options: Record<string, unknown>) => {
  run(): Promise<unknown>;
  close(): Promise<void>;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
} = require('s3rver');

const BUCKET = 'sitebase-media';

/** The S3 driver against a real S3-compatible server (s3rver), not a mock of the SDK. */
describe('media on S3-compatible storage', () => {
  const spool = tempMediaDir('s3-spool');
  const objects = tempMediaDir('s3-objects');
  let s3server: InstanceType<typeof S3rver>;
  let endpoint: string;
  let client: S3Client;
  let t: TestApp;
  let direct: TestApp;
  let a: Tenant;

  const s3env = () => ({
    MEDIA_STORAGE: 's3',
    S3_BUCKET: BUCKET,
    S3_ENDPOINT: endpoint,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
    MEDIA_LOCAL_DIR: spool.dir,
    PUBLIC_BASE_URL: 'http://app.test',
    MEDIA_THUMBNAIL_WIDTHS: '150,600,1200',
  });

  beforeAll(async () => {
    const port = await freePort();
    endpoint = `http://127.0.0.1:${port}`;
    s3server = new S3rver({
      port,
      address: '127.0.0.1',
      directory: objects.dir,
      silent: true,
      configureBuckets: [{ name: BUCKET }],
    });
    await s3server.run();
    client = new S3Client({
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    t = await startApp({ env: s3env() });
    direct = await startApp({ env: { ...s3env(), S3_PUBLIC_URL: `${endpoint}/${BUCKET}` } });
    a = await createTenant(t);
  });
  afterAll(async () => {
    try {
      await direct?.close();
      await t?.close();
      client?.destroy();
      await s3server?.close();
    } finally {
      spool.remove();
      objects.remove();
    }
  });

  const getObject = async (key: string) => {
    const out = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    return {
      body: Buffer.from(await out.Body!.transformToByteArray()),
      type: out.ContentType,
      disposition: out.ContentDisposition,
    };
  };
  const exists = (key: string) =>
    client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })).then(
      () => true,
      () => false,
    );

  it('stores the original and its thumbnails as objects, streamed back through the app', async () => {
    const png = await makePng(800, 600);
    const res = await a.api.post(`/api/v2/sites/${a.siteName}/media`).attach('file', png, 'Bucket Photo.png');
    expect(res.status).toBe(201);
    const key: string = res.body.key;
    expect(res.body).toEqual(
      expect.objectContaining({
        link: `http://app.test/files/${key}`,
        width: 800,
        height: 600,
        filesize: png.length,
      }),
    );
    expect(res.body.thumbnails.map((x: { size: string }) => x.size)).toEqual(['150x113', '600x450']);

    const stored = await getObject(key);
    expect(Buffer.compare(stored.body, png)).toBe(0);
    expect(stored.type).toBe('image/png');
    for (const th of res.body.thumbnails) expect(await exists(pathOf(th.link).replace('/files/', ''))).toBe(true);
    // Nothing landed on local disk but the (now empty) spool folder.
    expect(existsSync(join(spool.dir, key))).toBe(false);

    const served = await request(t.server).get(pathOf(res.body.link)).buffer(true).parse(binary);
    expect([served.status, served.headers['content-type'], served.headers['content-length']]).toEqual([
      200,
      'image/png',
      String(png.length),
    ]);
    expect(Buffer.compare(served.body as Buffer, png)).toBe(0);
    const part = await request(t.server)
      .get(pathOf(res.body.link))
      .set('range', 'bytes=1-3')
      .buffer(true)
      .parse(binary);
    expect([part.status, (part.body as Buffer).toString('latin1'), part.headers['content-range']]).toEqual([
      206,
      'PNG',
      `bytes 1-3/${png.length}`,
    ]);
  });

  it('deleting an item removes its objects', async () => {
    const res = await a.api
      .post(`/api/v2/sites/${a.siteName}/media`)
      .attach('file', await makePng(300, 300), 'gone.png');
    const keys = [
      res.body.key,
      ...res.body.thumbnails.map((x: { link: string }) => pathOf(x.link).replace('/files/', '')),
    ];
    expect(keys).toHaveLength(2);
    for (const k of keys) expect(await exists(k)).toBe(true);

    expect((await a.api.delete(`/api/v2/sites/${a.siteName}/media/${res.body.id}`)).status).toBe(204);
    for (const k of keys) expect(await exists(k)).toBe(false);
    expect(await t.db.getRepository(MediaItemEntity).countBy({ id: res.body.id })).toBe(0);
    expectProblem(await request(t.server).get(pathOf(res.body.link)), 404, 'not_found');
  });

  it('with S3_PUBLIC_URL, links point at the bucket, and SVG objects are attachments there too', async () => {
    const png = await makePng(64, 64);
    const res = await agentFor(direct, a.key)
      .post(`/api/v2/sites/${a.siteName}/media`)
      .attach('file', png, 'public.png');
    expect(res.status).toBe(201);
    expect(res.body.link).toBe(`${endpoint}/${BUCKET}/${res.body.key}`);
    const fetched = await fetch(res.body.link);
    expect(fetched.status).toBe(200);
    expect(Buffer.compare(Buffer.from(await fetched.arrayBuffer()), png)).toBe(0);

    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>');
    const up = await agentFor(direct, a.key).post(`/api/v2/sites/${a.siteName}/media`).attach('file', svg, 'icon.svg');
    expect((await getObject(up.body.key)).disposition).toBe('attachment; filename="icon.svg"');
  });
});

function agentFor(app: TestApp, key: string) {
  return { post: (url: string) => request(app.server).post(url).set('x-api-key', key) };
}
