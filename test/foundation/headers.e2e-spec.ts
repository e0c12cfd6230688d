import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { createTenant, Tenant } from '../support/tenant';

describe('security headers and CORS', () => {
  let t: TestApp;
  let proxied: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startApp();
    proxied = await startApp({ env: { TRUST_PROXY: 'true', JOBS_ENABLED: 'false' } });
    tenant = await createTenant(t);
  });
  afterAll(() => Promise.all([t.close(), proxied.close()]));

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
