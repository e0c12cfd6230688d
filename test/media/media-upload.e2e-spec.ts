import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import sharp from 'sharp';
import request from 'supertest';
import { OutboxEventEntity } from '../../src/common/outbox/outbox-event.entity';
import { MediaItemEntity } from '../../src/media/entities/media-item.entity';
import { MediaService } from '../../src/media/media.service';
import { eventually, startApp, TestApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';
import { binary, filesUnder, makeJpeg, makePdf, makePng, makePngHeader, pathOf, tempMediaDir } from '../support/files';
import { ISO } from '../support/matchers';

const MAX_BYTES = 3 * 1024 * 1024;
const BASE = 'http://media.test';

describe('POST /api/v2/sites/:siteName/media (uploads)', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  const media = tempMediaDir('upload');

  beforeAll(async () => {
    t = await startApp({
      env: { MEDIA_LOCAL_DIR: media.dir, MEDIA_MAX_BYTES: String(MAX_BYTES), PUBLIC_BASE_URL: BASE },
    });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(async () => {
    try {
      await t?.close();
    } finally {
      media.remove();
    }
  });

  const url = () => `/api/v2/sites/${a.siteName}/media`;
  const rows = (siteId: number) =>
    t.db.getRepository(MediaItemEntity).find({ where: { siteId }, order: { id: 'ASC' } });
  const fetchFile = (link: string) => request(t.server).get(pathOf(link)).buffer(true).parse(binary);
  /** Raw-socket tests need the server on a real port (supertest opens its own otherwise). */
  const listeningPort = async () => {
    if (!t.server.listening) await new Promise<void>((resolve) => t.server.listen(0, '127.0.0.1', resolve));
    return (t.server.address() as AddressInfo).port;
  };
  const spoolIsEmpty = () => expect(filesUnder(media.dir).filter((f) => f.startsWith('.tmp'))).toEqual([]);

  it('stores a PNG with its size and three thumbnails, served back byte for byte', async () => {
    const png = await makePng(1600, 900);
    const res = await a.api.post(url()).field('caption', 'Blue and red').attach('file', png, 'Blue Square.png');

    expect(res.status).toBe(201);
    const id = res.body.id as number;
    expect(res.headers.location).toBe(`${BASE}/api/v2/sites/${a.siteName}/media/${id}`);
    const key = res.body.key as string;
    expect(key).toMatch(new RegExp(`^sites/${a.siteId}/[0-9a-f]{20}/blue-square\\.png$`));
    const link = `${BASE}/files/${key}`;
    const thumb = (w: number, h: number) => ({
      id: expect.any(Number),
      link: `${BASE}/files/${key.replace(/\.png$/, `-${w}w.png`)}`,
      contentType: 'image/png',
      width: w,
      height: h,
      size: `${w}x${h}`,
      filesize: expect.any(Number),
    });
    expect(res.body).toEqual({
      id,
      mediaId: id,
      attachmentId: id,
      siteName: a.siteName,
      title: 'Blue Square',
      caption: 'Blue and red',
      description: '',
      altText: '',
      fileName: 'Blue Square.png',
      contentType: 'image/png',
      link,
      originalUrl: link,
      size: '1600x900',
      width: 1600,
      height: 900,
      filesize: png.length,
      mediaDate: ISO,
      isOriginal: true,
      isThumbnail: false,
      key,
      categories: [],
      tags: [],
      thumbnails: [thumb(150, 84), thumb(600, 338), thumb(1200, 675)],
      updatedAt: ISO,
    });

    const stored = (await rows(a.siteId)).filter((r) => r.id === id || r.originalId === id);
    expect(stored.map((r) => [r.originalId, r.width, r.height, r.contentType])).toEqual([
      [null, 1600, 900, 'image/png'],
      [id, 150, 84, 'image/png'],
      [id, 600, 338, 'image/png'],
      [id, 1200, 675, 'image/png'],
    ]);
    expect(stored[1].storageKey).toBe(`${key.replace(/\.png$/, '-150w.png')}`);
    expect(stored.map((r) => r.fileName)).toEqual([
      'Blue Square.png',
      'Blue Square-150w.png',
      'Blue Square-600w.png',
      'Blue Square-1200w.png',
    ]);

    const file = await fetchFile(link);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    expect(file.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(file.headers['content-disposition']).toBe('inline; filename="Blue Square.png"');
    expect(Buffer.compare(file.body as Buffer, png)).toBe(0);
    expect(readFileSync(join(media.dir, key)).equals(png)).toBe(true);

    const small = await fetchFile(res.body.thumbnails[0].link);
    expect(await sharp(small.body as Buffer).metadata()).toEqual(
      expect.objectContaining({ format: 'png', width: 150, height: 84 }),
    );
    // The thumbnail row points at its original (§2.2 attachment_id / original_url).
    const [view] = await t.app
      .get(MediaService)
      .viewsByIds({ id: a.siteId, name: a.siteName, accountId: a.accountId }, [res.body.thumbnails[0].id]);
    expect(view).toEqual(
      expect.objectContaining({ attachmentId: id, originalUrl: link, isThumbnail: true, isOriginal: false }),
    );

    const event = await t.db
      .getRepository(OutboxEventEntity)
      .findOneByOrFail({ siteId: a.siteId, name: 'media.created' });
    expect(event.payload).toEqual({
      id,
      fileName: 'Blue Square.png',
      contentType: 'image/png',
      filesize: png.length,
      thumbnailIds: stored.slice(1).map((r) => r.id),
    });
    spoolIsEmpty();
  });

  it('applies the EXIF orientation of a JPEG to its size and thumbnails, never enlarging', async () => {
    const jpeg = await makeJpeg(1000, 700, 6); // stored landscape, displayed portrait
    const res = await a.api
      .post(url())
      .field('title', 'Portrait')
      .field('altText', 'A yellow page')
      .attach('file', jpeg, 'photo.JPG');

    expect(res.status).toBe(201);
    expect(res.body).toEqual(
      expect.objectContaining({
        title: 'Portrait',
        altText: 'A yellow page',
        contentType: 'image/jpeg',
        width: 700,
        height: 1000,
        size: '700x1000',
        filesize: jpeg.length,
        fileName: 'photo.JPG',
      }),
    );
    expect(res.body.key).toMatch(/\/photo\.jpg$/);
    expect(res.body.thumbnails.map((x: { size: string }) => x.size)).toEqual(['150x214', '600x857']);
    const thumb = await fetchFile(res.body.thumbnails[1].link);
    const meta = await sharp(thumb.body as Buffer).metadata();
    expect([meta.format, meta.width, meta.height, meta.orientation]).toEqual(['jpeg', 600, 857, undefined]);
    expect(Buffer.compare((await fetchFile(res.body.link)).body as Buffer, jpeg)).toBe(0);
  });

  it('stores a PDF without variants or dimensions, and serves byte ranges of it', async () => {
    const pdf = makePdf('Menu');
    const res = await a.api
      .post(url())
      .attach('file', pdf, { filename: 'menu.pdf', contentType: 'application/octet-stream' });

    expect(res.status).toBe(201);
    expect(res.body).toEqual(
      expect.objectContaining({
        contentType: 'application/pdf',
        width: null,
        height: null,
        size: null,
        filesize: pdf.length,
        thumbnails: [],
        isOriginal: true,
        isThumbnail: false,
        title: 'menu',
      }),
    );
    expect(await t.db.getRepository(MediaItemEntity).countBy({ originalId: res.body.id })).toBe(0);
    const file = await fetchFile(res.body.link);
    expect([file.status, file.headers['content-type']]).toEqual([200, 'application/pdf']);
    expect(Buffer.compare(file.body as Buffer, pdf)).toBe(0);

    const part = await request(t.server)
      .get(pathOf(res.body.link))
      .set('range', 'bytes=0-7')
      .buffer(true)
      .parse(binary);
    expect([part.status, part.headers['content-range'], (part.body as Buffer).toString('latin1')]).toEqual([
      206,
      `bytes 0-7/${pdf.length}`,
      '%PDF-1.4',
    ]);
    const outside = await request(t.server)
      .get(pathOf(res.body.link))
      .set('range', `bytes=${pdf.length + 10}-`);
    expectProblem(outside, 416, 'range_not_satisfiable');
    const again = await request(t.server).get(pathOf(res.body.link)).set('if-none-match', file.headers.etag);
    expect(again.status).toBe(304);
  });

  it('serves SVG only as an attachment, under a sandboxing CSP', async () => {
    const svg = Buffer.from(
      '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><script>alert(1)</script></svg>',
    );
    const res = await a.api.post(url()).attach('file', svg, 'logo.svg');
    expect(res.status).toBe(201);
    expect(res.body).toEqual(
      expect.objectContaining({ contentType: 'image/svg+xml', width: 40, height: 20, thumbnails: [] }),
    );
    const file = await fetchFile(res.body.link);
    expect(file.headers['content-type']).toBe('image/svg+xml');
    expect(file.headers['content-disposition']).toBe('attachment; filename="logo.svg"');
    expect(file.headers['content-security-policy']).toContain('sandbox');
  });

  it('a ".png" that is really text is a 415, and nothing is kept', async () => {
    const before = (await rows(a.siteId)).length;
    const res = await a.api.post(url()).attach('file', Buffer.from('just some text, not an image\n'), {
      filename: 'evil.png',
      contentType: 'image/png',
    });
    expectProblem(res, 415, 'unsupported_media_type');
    expect((await rows(a.siteId)).length).toBe(before);
    spoolIsEmpty();
  });

  it('HTML, executables and archives are 415 whatever their name says', async () => {
    const zip = Buffer.from('504b0304140000000800000021000000000000000000000000000000', 'hex');
    for (const [bytes, name] of [
      [Buffer.from('<!doctype html><script>x</script>'), 'page.jpg'],
      [Buffer.from('MZ\x90\x00\x03\x00\x00\x00', 'latin1'), 'a.pdf'],
      [zip, 'b.docx'],
    ] as const) {
      expectProblem(await a.api.post(url()).attach('file', bytes, name), 415, 'unsupported_media_type');
    }
  });

  it('a file over MEDIA_MAX_BYTES is a 413, and nothing is kept', async () => {
    const before = (await rows(a.siteId)).length;
    const big = Buffer.concat([makePdf(), Buffer.alloc(MAX_BYTES)]);
    const res = await a.api.post(url()).attach('file', big, 'big.pdf');
    expectProblem(res, 413, 'payload_too_large');
    expect(res.body.detail).toBe(`A file may be at most ${MAX_BYTES} bytes`);
    expect((await rows(a.siteId)).length).toBe(before);
    spoolIsEmpty();
  });

  it('a body declared far past the limit is refused before it is read, and the connection closed', async () => {
    const port = await listeningPort();
    const res = await new Promise<{ status: number; connection?: string; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: url(),
          headers: {
            'x-api-key': a.key,
            'content-type': 'multipart/form-data; boundary=B',
            'content-length': String(500 * 1024 * 1024),
          },
        },
        (r) => {
          let body = '';
          r.on('data', (c) => (body += c));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, connection: r.headers.connection, body }));
        },
      );
      req.on('error', reject);
      req.write('--B\r\nContent-Disposition: form-data; name="file"; filename="huge.pdf"\r\n\r\n%PDF-1.4\n');
    });
    expect([res.status, res.connection, JSON.parse(res.body).code]).toEqual([413, 'close', 'payload_too_large']);
  });

  it('a client that goes away mid-upload leaves nothing behind', async () => {
    const port = await listeningPort();
    const before = (await rows(a.siteId)).length;
    await new Promise<void>((resolve) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: url(),
        headers: { 'x-api-key': a.key, 'content-type': 'multipart/form-data; boundary=B', 'content-length': '200000' },
      });
      req.on('error', () => resolve());
      req.write(
        `--B\r\nContent-Disposition: form-data; name="file"; filename="cut.pdf"\r\n\r\n%PDF-1.4\n${'x'.repeat(50000)}`,
      );
      setTimeout(() => req.destroy(), 100);
      setTimeout(resolve, 300);
    });
    await eventually(async () => (filesUnder(media.dir).some((f) => f.startsWith('.tmp')) ? undefined : true), 5000);
    expect((await rows(a.siteId)).length).toBe(before);
  });

  it('a file named ../../etc/passwd is stored under a generated key inside the media folder', async () => {
    const png = await makePng(20, 10);
    const res = await a.api.post(url()).attach('file', png, '../../etc/passwd');
    expect(res.status).toBe(201);
    expect(res.body.fileName).toBe('passwd');
    expect(res.body.key).toMatch(new RegExp(`^sites/${a.siteId}/[0-9a-f]{20}/passwd\\.png$`));
    expect(existsSync(join(media.dir, res.body.key))).toBe(true);
    expect(filesUnder(media.dir).every((f) => !f.includes('..'))).toBe(true);
    expect(existsSync(join(media.dir, '..', '..', 'etc', 'passwd.png'))).toBe(false);
  });

  it('a PNG header claiming 30000 x 30000 pixels is refused before decoding', async () => {
    const bomb = makePngHeader(30000, 30000);
    const rss = process.memoryUsage().rss;
    const res = await a.api.post(url()).attach('file', bomb, 'bomb.png');
    expectProblem(res, 413, 'image_too_large');
    expect(res.body.detail).toBe('The image has more than 50000000 pixels');
    // Decoding it would take 2.7 GB.
    expect(process.memoryUsage().rss - rss).toBeLessThan(100 * 1024 * 1024);
    spoolIsEmpty();
  });

  it('a truncated image is a 400, not a 500', async () => {
    const png = await makePng(300, 200);
    const res = await a.api.post(url()).attach('file', png.subarray(0, 60), 'cut.png');
    expectProblem(res, 400, 'unreadable_image');
  });

  describe('bad requests', () => {
    it.each([
      ['no file part', (r: request.Test) => r.field('title', 'x'), [{ path: 'file', message: 'is required' }]],
      [
        'an empty file',
        (r: request.Test) => r.attach('file', Buffer.alloc(0), 'empty.png'),
        [{ path: 'file', message: 'must not be empty' }],
      ],
      [
        'an unknown field',
        (r: request.Test) => r.field('colour', 'red').attach('file', makePdf(), 'a.pdf'),
        [{ path: 'colour', message: 'is not allowed' }],
      ],
      [
        'a field named like an Object method',
        (r: request.Test) => r.field('toString', 'x').attach('file', makePdf(), 'a.pdf'),
        [{ path: 'toString', message: 'is not allowed' }],
      ],
      [
        'a field given twice',
        (r: request.Test) => r.field('title', 'x').field('title', 'y').attach('file', makePdf(), 'a.pdf'),
        [{ path: 'title', message: 'is given more than once' }],
      ],
      [
        // Issue #30, row 10: the item had no `path` (busboy names such a part undefined).
        'a field with an empty name, twice',
        (r: request.Test) => r.field('', 'x').field('', 'y').attach('file', makePdf(), 'a.pdf'),
        [{ path: '', message: 'is a form field without a name' }],
      ],
      [
        'a text field too long',
        (r: request.Test) => r.field('title', 'x'.repeat(501)).attach('file', makePdf(), 'a.pdf'),
        [{ path: 'title', message: 'must be shorter than or equal to 500 characters' }],
      ],
      [
        'two files',
        (r: request.Test) => r.attach('file', makePdf(), 'a.pdf').attach('file', makePdf(), 'b.pdf'),
        [{ path: 'file', message: 'at most 1 file(s) per request' }],
      ],
      [
        'a file in another field',
        (r: request.Test) => r.attach('upload', makePdf(), 'a.pdf'),
        [{ path: 'upload', message: 'is not a file field' }],
      ],
      [
        '"file" as a text field',
        (r: request.Test) => r.field('file', 'abc'),
        [{ path: 'file', message: 'must be a file' }],
      ],
    ])('%s is a 400 naming the field', async (_label, build, errors) => {
      const before = (await rows(a.siteId)).length;
      const res = await build(a.api.post(url()));
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual(errors);
      expect((await rows(a.siteId)).length).toBe(before);
    });

    it('garbage multipart is a 400 malformed_multipart', async () => {
      const res = await a.api
        .post(url())
        .set('content-type', 'multipart/form-data; boundary=XyZ')
        .send('this is not multipart at all');
      expectProblem(res, 400, 'malformed_multipart');
      const cut = await a.api
        .post(url())
        .set('content-type', 'multipart/form-data; boundary=XyZ')
        .send(
          '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.4 and then the body stops',
        );
      expectProblem(cut, 400, 'malformed_multipart');
      const noBoundary = await a.api.post(url()).set('content-type', 'multipart/form-data;').send('x');
      expectProblem(noBoundary, 400, 'malformed_multipart');
      spoolIsEmpty();
    });

    it('JSON or no body is a 415', async () => {
      expectProblem(await a.api.post(url()).send({ title: 'x' }), 415, 'unsupported_media_type');
      expectProblem(await a.api.post(url()), 415, 'unsupported_media_type');
    });

    it("no key is a 401, another account's site a 404, an unknown site a 404", async () => {
      expectProblem(await request(t.server).post(url()).attach('file', makePdf(), 'a.pdf'), 401, 'missing_credential');
      expectProblem(await b.api.post(url()).attach('file', makePdf(), 'a.pdf'), 404, 'site_not_found');
      expectProblem(
        await a.api.post('/api/v2/sites/no-such-site-here/media').attach('file', makePdf(), 'a.pdf'),
        404,
        'site_not_found',
      );
      expect((await rows(b.siteId)).length).toBe(0);
    });
  });

  it('files of deleted or unknown keys are 404, and paths cannot escape the folder', async () => {
    expectProblem(await request(t.server).get('/files/sites/1/0000/nothing.png'), 404, 'not_found');
    expectProblem(await request(t.server).get('/files/..%2F..%2Fetc%2Fpasswd'), 404, 'not_found');
    expectProblem(await request(t.server).get('/files/.tmp/x'), 404, 'not_found');
    expectProblem(await request(t.server).post('/files/sites/1/x.png'), 404, 'route_not_found');
  });
});
