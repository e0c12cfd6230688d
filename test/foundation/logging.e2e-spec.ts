import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { createTenant, Tenant } from '../support/tenant';

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  method?: string;
  url?: string;
  status?: number;
  ms?: number;
  [key: string]: unknown;
}

describe('structured access logs', () => {
  let t: TestApp;
  let tenant: Tenant;
  const lines: LogLine[] = [];

  beforeAll(async () => {
    t = await startApp({
      env: { LOG_LEVEL: 'info', JOBS_ENABLED: 'false' },
      logDestination: { write: (l: string) => lines.push(JSON.parse(l)) },
    });
    tenant = await createTenant(t);
  });
  afterAll(() => t.close());

  const accessLine = (reqId: string) => lines.find((l) => l.msg === 'request completed' && l.reqId === reqId);

  it('writes one JSON line per request with its id, method, URL, status and duration, never the key', async () => {
    const res = await tenant.api.get('/api/v2/api-keys?limit=5').set('x-request-id', 'log-test-1').expect(200);
    expect(res.headers['x-request-id']).toBe('log-test-1');
    const line = accessLine('log-test-1');
    expect(line).toEqual(
      expect.objectContaining({
        level: 30,
        reqId: 'log-test-1',
        method: 'GET',
        url: '/api/v2/api-keys?limit=5',
        status: 200,
        ms: expect.any(Number),
        route: '/api/v2/api-keys',
        keyId: tenant.keyId,
      }),
    );
    expect(JSON.stringify(lines)).not.toContain(tenant.key);
  });

  it("logs client errors at info (they are the client's, not the server's) and leaves health probes out", async () => {
    await request(t.server).get('/api/v2/api-keys').set('x-request-id', 'log-test-2').expect(401);
    expect(accessLine('log-test-2')).toEqual(expect.objectContaining({ level: 30, status: 401 }));
    await request(t.server).get('/health').set('x-request-id', 'log-test-3').expect(200);
    expect(accessLine('log-test-3')).toBeUndefined();
  });

  it('names the route template, the site and the key of a site request', async () => {
    await tenant.api
      .get(`/api/v2/sites/${tenant.siteName}/content/999999`)
      .set('x-request-id', 'log-test-4')
      .expect(404);
    expect(accessLine('log-test-4')).toEqual(
      expect.objectContaining({
        level: 30,
        url: `/api/v2/sites/${tenant.siteName}/content/999999`,
        route: '/api/v2/sites/:siteName/content/:id',
        site: tenant.siteName,
        keyId: tenant.keyId,
        status: 404,
      }),
    );
    expect(accessLine('log-test-4')).not.toHaveProperty('userId');
  });
});

describe('slow requests (SLOW_REQUEST_MS)', () => {
  let t: TestApp;
  const lines: LogLine[] = [];

  beforeAll(async () => {
    // Warn only: a fast 200 is not logged at all, a slow one is.
    t = await startApp({
      env: { LOG_LEVEL: 'warn', JOBS_ENABLED: 'false', SLOW_REQUEST_MS: '1' },
      logDestination: { write: (l: string) => lines.push(JSON.parse(l)) },
    });
  });
  afterAll(() => t.close());

  it('logs a request slower than the threshold at warn, with its route and duration', async () => {
    // Reading the OpenAPI document takes well over a millisecond.
    await request(t.server).get('/docs/openapi.json').set('x-request-id', 'slow-1').expect(200);
    const line = lines.find((l) => l.reqId === 'slow-1');
    expect(line).toEqual(
      expect.objectContaining({
        level: 40,
        msg: 'request completed',
        slow: true,
        // Served from memory before the routes (docs-assets.ts): the label of /docs's own files.
        route: '/docs/*',
        status: 200,
      }),
    );
    expect(line!.ms).toBeGreaterThanOrEqual(1);
  });
});
