import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startApp, TestApp } from '../support/app';
import { contentUrl, makeContent } from '../support/factories';
import { createTenant, Tenant } from '../support/tenant';

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they came over the wire (still encoded). */
  bytes: Buffer;
}

/**
 * Answers are compressed when the client asks, and only then (src/common/http/compression.ts).
 * Requests go through node's http, which leaves the bytes as sent (supertest would decode them).
 */
describe('compression of answers', () => {
  let t: TestApp;
  let tenant: Tenant;
  let port: number;

  function get(path: string, headers: Record<string, string> = {}): Promise<Raw> {
    return new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  }

  beforeAll(async () => {
    t = await startApp();
    await t.app.listen(0, '127.0.0.1');
    port = (t.server.address() as AddressInfo).port;
    tenant = await createTenant(t);
    for (let i = 0; i < 3; i++)
      await makeContent(tenant, { title: `Published ${i}`, status: 'published', content: 'words '.repeat(200) });
  });
  afterAll(() => t.close());

  it('the document comes gzip-compressed when asked, about ten times smaller, and decodes to the same JSON', async () => {
    const plain = await get('/docs/openapi.json', { 'accept-encoding': 'identity' });
    const gzip = await get('/docs/openapi.json', { 'accept-encoding': 'gzip' });
    expect([plain.status, plain.headers['content-encoding']]).toEqual([200, undefined]);
    expect([gzip.status, gzip.headers['content-encoding']]).toEqual([200, 'gzip']);
    expect(gzip.headers.vary).toMatch(/Accept-Encoding/i);
    expect(gzip.bytes.length * 5).toBeLessThan(plain.bytes.length);
    expect(JSON.parse(gunzipSync(gzip.bytes).toString())).toEqual(JSON.parse(plain.bytes.toString()));
  });

  it('brotli when the client prefers it; nothing without Accept-Encoding', async () => {
    const br = await get('/docs/openapi.json', { 'accept-encoding': 'br, gzip' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.bytes).toString())).toEqual(
      expect.objectContaining({ openapi: expect.any(String) }),
    );
    const none = await get('/docs/openapi.json');
    expect(none.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(none.bytes.toString())).toEqual(expect.objectContaining({ openapi: expect.any(String) }));
  });

  it('a JSON answer of the API keeps its request id, ETag and 304 when compressed', async () => {
    const url = contentUrl(tenant, '?limit=20');
    const plain = await get(url, { 'x-request-id': 'plain-1' });
    const gzip = await get(url, { 'accept-encoding': 'gzip', 'x-request-id': 'gzip-1' });
    expect([plain.status, plain.headers['content-encoding']]).toEqual([200, undefined]);
    expect([gzip.status, gzip.headers['content-encoding']]).toEqual([200, 'gzip']);
    expect([plain.headers['x-request-id'], gzip.headers['x-request-id']]).toEqual(['plain-1', 'gzip-1']);
    expect(gzip.bytes.length).toBeLessThan(plain.bytes.length);
    expect(JSON.parse(gunzipSync(gzip.bytes).toString())).toEqual(JSON.parse(plain.bytes.toString()));
    // One ETag for both encodings: it names what the answer says, and revalidates either way.
    expect(gzip.headers.etag).toBe(plain.headers.etag);
    const revalidated = await get(url, { 'accept-encoding': 'gzip', 'if-none-match': String(gzip.headers.etag) });
    expect([revalidated.status, revalidated.bytes.length]).toEqual([304, 0]);
  });

  it('small answers (under 1 KB) are sent as they are', async () => {
    const health = await get('/health', { 'accept-encoding': 'gzip' });
    expect([health.status, health.headers['content-encoding']]).toEqual([200, undefined]);
    expect(JSON.parse(health.bytes.toString())).toEqual({ status: 'ok' });
  });

  it("Swagger UI's start script names the document instead of inlining it", async () => {
    const init = await get('/docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.bytes.length).toBeLessThan(2000);
    expect(init.bytes.toString()).toContain('url: "/docs/openapi.json"');
    expect(init.bytes.toString()).toContain('persistAuthorization: true');
  });
  it("the document and Swagger UI's files are compressed once and answered from memory (a stranger's loop costs no compression)", async () => {
    for (const path of ['/docs/openapi.json', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css']) {
      const plain = await get(path);
      const answers = [];
      for (const encoding of ['br', 'gzip', 'br']) answers.push(await get(path, { 'accept-encoding': encoding }));
      const [br, gz, again] = answers;
      // Whole buffers, sent with their length (a body compressed on the fly goes out chunked).
      for (const a of [plain, ...answers]) {
        expect(a.status).toBe(200);
        expect(a.headers['transfer-encoding']).toBeUndefined();
        expect(Number(a.headers['content-length'])).toBe(a.bytes.length);
      }
      expect([br.headers['content-encoding'], gz.headers['content-encoding']]).toEqual(['br', 'gzip']);
      expect(again.bytes.equals(br.bytes)).toBe(true);
      expect(brotliDecompressSync(br.bytes).equals(plain.bytes)).toBe(true);
      expect(gunzipSync(gz.bytes).equals(plain.bytes)).toBe(true);
      expect(br.bytes.length * 3).toBeLessThan(plain.bytes.length);
      // One ETag for the content, whatever the encoding; naming it answers 304.
      expect(new Set(answers.map((a) => a.headers.etag))).toEqual(new Set([plain.headers.etag]));
      const revalidated = await get(path, { 'accept-encoding': 'br', 'if-none-match': String(plain.headers.etag) });
      expect([revalidated.status, revalidated.bytes.length]).toEqual([304, 0]);
    }
  });
  it('an answer too large to compress on every request (over 256 KB) is sent as it is', async () => {
    const yaml = await get('/docs/openapi.yaml', { 'accept-encoding': 'gzip, br' });
    expect(yaml.status).toBe(200);
    expect(yaml.bytes.length).toBeGreaterThan(256 * 1024);
    expect(yaml.headers['content-encoding']).toBeUndefined();
  });
});
