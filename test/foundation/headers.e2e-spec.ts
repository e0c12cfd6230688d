import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { binary, makePdf, pathOf, tempMediaDir } from '../support/files';
import { createTenant, Tenant } from '../support/tenant';

const API_CSP = "default-src 'none';frame-ancestors 'none'";
const METRICS_TOKEN = 'headers-metrics-token-0123456789';

describe('security headers and CORS', () => {
  let t: TestApp;
  let proxied: TestApp;
  let tenant: Tenant;
  const media = tempMediaDir('headers');

  beforeAll(async () => {
    t = await startApp({ env: { MEDIA_LOCAL_DIR: media.dir, METRICS_TOKEN } });
    proxied = await startApp({ env: { TRUST_PROXY: 'true', JOBS_ENABLED: 'false' } });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await Promise.all([t.close(), proxied.close()]);
    media.remove();
  });

  /** The API set: no script runs, nothing frames the answer, no sniffing, no X-Powered-By. */
  const expectApiSet = (res: request.Response) => {
    expect({
      csp: res.headers['content-security-policy'],
      nosniff: res.headers['x-content-type-options'],
      poweredBy: res.headers['x-powered-by'],
    }).toEqual({ csp: API_CSP, nosniff: 'nosniff', poweredBy: undefined });
  };

  it.each([
    ['a 401 problem', () => request(t.server).get('/api/v2/api-keys'), 401],
    ['a 404 problem (no route)', () => request(t.server).get('/no/such/route'), 404],
    ['a 400 problem', () => tenant.api.get('/api/v2/api-keys?limit=0'), 400],
    [
      'a 415 before credentials',
      () => request(t.server).post('/api/v2/api-keys').set('content-encoding', 'gzip').send('x'),
      415,
    ],
    ['a 401 at /metrics', () => request(t.server).get('/metrics'), 401],
    [
      'the /metrics scrape',
      () => request(t.server).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`),
      200,
    ],
    ['the health probe', () => request(t.server).get('/health'), 200],
  ])('%s carries the API set too', async (_label, send, status) => {
    const res = await send();
    expect(res.status).toBe(status);
    expectApiSet(res);
  });

  it('public reads (twice: the second from the read cache) and stored files carry it, files with CORP', async () => {
    await tenant.api.post(`/api/v2/sites/${tenant.siteName}/content`).send({ title: 'Hi', status: 'published' });
    for (let i = 0; i < 2; i++) {
      const read = await request(t.server).get(`/api/v2/sites/${tenant.siteName}/content`).expect(200);
      expectApiSet(read);
    }
    const upload = await tenant.api
      .post(`/api/v2/sites/${tenant.siteName}/media`)
      .attach('file', makePdf(), 'menu.pdf')
      .expect(201);
    const file = await request(t.server)
      .get(pathOf(upload.body.link as string))
      .buffer(true)
      .parse(binary)
      .expect(200);
    expectApiSet(file);
    expect(file.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });

  it('API responses get the short API set: nothing may run or frame them, no sniffing', async () => {
    const res = await tenant.api.get('/api/v2/api-keys').expect(200);
    expect(res.headers).toEqual(
      expect.objectContaining({
        'content-security-policy': "default-src 'none';frame-ancestors 'none'",
        'x-content-type-options': 'nosniff',
        vary: expect.stringContaining('Origin'),
      }),
    );
    for (const pageOnly of [
      'x-frame-options',
      'referrer-policy',
      'cross-origin-opener-policy',
      'origin-agent-cluster',
      'x-xss-protection',
    ]) {
      expect(res.headers[pageOnly]).toBeUndefined();
    }
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('sends HSTS only on secure requests (here: behind a trusted TLS proxy)', async () => {
    const plain = await request(t.server).get('/health').expect(200);
    expect(plain.headers['strict-transport-security']).toBeUndefined();
    const secure = await request(proxied.server).get('/health').set('x-forwarded-proto', 'https').expect(200);
    expect(secure.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
  });

  it('Swagger UI gets the browser policy that lets its own scripts run, without forcing https', async () => {
    const res = await request(t.server).get('/docs').expect(200);
    const csp = res.headers['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
  });

  it('answers a CORS preflight from any origin and exposes Location and the request id', async () => {
    const pre = await request(t.server)
      .options('/api/v2/api-keys')
      .set('Origin', 'https://www.example.org')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'x-api-key, content-type');
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('https://www.example.org');
    expect(pre.headers['access-control-allow-headers']).toBe('x-api-key, content-type');
    const res = await tenant.api.get('/api/v2/api-keys').set('Origin', 'https://www.example.org').expect(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://www.example.org');
    expect(res.headers['access-control-expose-headers']).toBe(
      'Location,ETag,x-request-id,Retry-After,Idempotent-Replayed',
    );
  });
});
