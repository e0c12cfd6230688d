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
      }),
    );
    expect(JSON.stringify(lines)).not.toContain(tenant.key);
  });

  it('logs client errors at warn and leaves health probes out', async () => {
    await request(t.server).get('/api/v2/api-keys').set('x-request-id', 'log-test-2').expect(401);
    expect(accessLine('log-test-2')).toEqual(expect.objectContaining({ level: 40, status: 401 }));
    await request(t.server).get('/health').set('x-request-id', 'log-test-3').expect(200);
    expect(accessLine('log-test-3')).toBeUndefined();
  });
});
