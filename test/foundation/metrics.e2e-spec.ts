import { Controller, Get, Module } from '@nestjs/common';
import request from 'supertest';
import { Public } from '../../src/common/auth/decorators';
import { QueueService } from '../../src/common/queue/queue.service';
import { MEDIA_REMOVE_FILES_JOB } from '../../src/media/media-files.job';
import { startApp, TestApp } from '../support/app';
import { createFreshDatabase, freePort } from '../support/databases';
import { expectProblem } from '../support/problem';
import { sample } from '../support/prometheus';
import { createTenant, Tenant, uniqueName } from '../support/tenant';

const TOKEN = 'metrics-token-0123456789abcdef';

/** A route that fails as a bug would: the 5xx counters must see it. */
@Controller()
class BoomController {
  @Public()
  @Get('probe/boom/:id')
  boom(): never {
    throw new Error('boom');
  }
}

@Module({ controllers: [BoomController] })
class BoomModule {}

describe('Prometheus metrics', () => {
  describe('off by default', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp({ env: { JOBS_ENABLED: 'false' } });
    });
    afterAll(() => t.close());

    it('answers 404 at /metrics when no token and no port are set', async () => {
      expectProblem(await request(t.server).get('/metrics'), 404, 'route_not_found');
    });
  });

  describe('on the main port, behind METRICS_TOKEN', () => {
    let t: TestApp;
    let tenant: Tenant;
    const scrape = async () => {
      const res = await request(t.server).get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      return res.text;
    };

    beforeAll(async () => {
      // A database of its own: the gauges then show exactly the rows this file seeds.
      t = await startApp({
        env: { METRICS_TOKEN: TOKEN, METRICS_CACHE_MS: '0', JOBS_ENABLED: 'false' },
        databaseUrl: await createFreshDatabase('metrics'),
        extraModules: [BoomModule],
      });
      tenant = await createTenant(t);
    });
    afterAll(() => t.close());

    it('refuses a scrape without the token, with a wrong one, or with an API key (401 problem)', async () => {
      const none = await request(t.server).get('/metrics');
      expectProblem(none, 401, 'missing_credential');
      expect(none.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      const wrong = await request(t.server).get('/metrics').set('Authorization', `Bearer ${TOKEN}x`);
      expectProblem(wrong, 401, 'invalid_metrics_token');
      const key = await request(t.server).get('/metrics').set('Authorization', `Bearer ${tenant.key}`);
      expectProblem(key, 401, 'invalid_metrics_token');
      expect(key.text).not.toContain('sitebase_');
    });

    it('serves the process metrics with the sitebase_ prefix, outside the OpenAPI document', async () => {
      const text = await scrape();
      expect(sample(text, 'sitebase_process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(sample(text, 'sitebase_process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(sample(text, 'sitebase_nodejs_eventloop_lag_p99_seconds')).toEqual(expect.any(Number));
      const doc = await request(t.server).get('/docs/openapi.json').expect(200);
      expect(Object.keys((doc.body as { paths: object }).paths).filter((p) => p.startsWith('/metrics'))).toEqual([]);
    });

    it('counts requests by method, route template and status class, never by raw path', async () => {
      const route = '/api/v2/sites/:siteName/content/:id';
      const missing = { method: 'GET', route, status_class: '4xx' };
      const keys = { method: 'GET', route: '/api/v2/api-keys', status_class: '2xx' };
      const unmatched = { method: 'GET', route: 'unmatched', status_class: '4xx' };
      const before = await scrape();
      for (let i = 0; i < 3; i++) {
        await tenant.api.get(`/api/v2/sites/${tenant.siteName}/content/${990000 + i}`).expect(404);
      }
      await tenant.api.get('/api/v2/api-keys').expect(200);
      const stray = uniqueName('stray');
      await request(t.server).get(`/${stray}/x`).expect(404);
      // Refused before routing (an unknown key): still labelled with the route it was for.
      await request(t.server)
        .get(`/api/v2/sites/${tenant.siteName}/content/1`)
        .set('x-api-key', `sb_live_${'x'.repeat(32)}`)
        .expect(401);
      const after = await scrape();

      const delta = (name: string, labels: Record<string, string>) =>
        (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
      expect(delta('sitebase_http_requests_total', missing)).toBe(4);
      expect(delta('sitebase_http_request_duration_seconds_count', missing)).toBe(4);
      expect(sample(after, 'sitebase_http_request_duration_seconds_bucket', { ...missing, le: '+Inf' })).toBe(
        sample(after, 'sitebase_http_request_duration_seconds_count', missing),
      );
      expect(delta('sitebase_http_requests_total', keys)).toBe(1);
      expect(delta('sitebase_http_requests_total', unmatched)).toBe(1);
      expect(after).not.toContain(tenant.siteName);
      expect(after).not.toContain(stray);
      // Scrapes are not counted.
      expect(
        sample(after, 'sitebase_http_requests_total', { method: 'GET', route: 'unmatched', status_class: '2xx' }),
      ).toBeUndefined();
    });

    it('counts 5xx answers as server errors', async () => {
      const labels = { method: 'GET', route: '/probe/boom/:id' };
      const before = sample(await scrape(), 'sitebase_http_server_errors_total', labels) ?? 0;
      expectProblem(await request(t.server).get('/probe/boom/1'), 500, 'internal_error');
      expectProblem(await request(t.server).get('/probe/boom/2'), 500, 'internal_error');
      const after = await scrape();
      expect(sample(after, 'sitebase_http_server_errors_total', labels)).toBe(before + 2);
      expect(sample(after, 'sitebase_http_requests_total', { ...labels, status_class: '5xx' })).toBe(before + 2);
    });

    it('reports the database pool and the time queries waited for a connection', async () => {
      const text = await scrape();
      expect(sample(text, 'sitebase_db_pool_connections')).toBeGreaterThan(0);
      expect(sample(text, 'sitebase_db_pool_idle')).toEqual(expect.any(Number));
      expect(sample(text, 'sitebase_db_pool_waiting')).toBe(0);
      expect(sample(text, 'sitebase_db_pool_acquire_seconds_count')).toBeGreaterThan(0);
    });

    it('reads queue depth and age, outbox lag and campaign progress from the database', async () => {
      // The tenant's own events (account and site created) would be dispatched by a relay.
      await t.db.query('UPDATE outbox_events SET dispatched_at = now() WHERE dispatched_at IS NULL');
      const empty = await scrape();
      const queue = { queue: MEDIA_REMOVE_FILES_JOB };
      expect(sample(empty, 'sitebase_queue_jobs_waiting', queue)).toBe(0);
      expect(sample(empty, 'sitebase_queue_oldest_due_job_age_seconds', queue)).toBe(0);
      expect(sample(empty, 'sitebase_outbox_lag_seconds')).toBe(0);
      expect(sample(empty, 'sitebase_outbox_events_pending')).toBe(0);
      expect(sample(empty, 'sitebase_campaigns_sending')).toBe(0);
      expect(sample(empty, 'sitebase_outbox_events_parked')).toBe(0);

      // Three jobs (JOBS_ENABLED=false: nobody takes them), one due for an hour, one due later.
      const queueService = t.app.get(QueueService);
      const hourAgo = new Date(Date.now() - 3600_000);
      await queueService.send(MEDIA_REMOVE_FILES_JOB, { keys: [] }, { startAfter: hourAgo });
      await queueService.send(MEDIA_REMOVE_FILES_JOB, { keys: [] });
      await queueService.send(MEDIA_REMOVE_FILES_JOB, { keys: [] }, { startAfter: new Date(Date.now() + 3600_000) });
      // Two undispatched outbox events, the oldest from 10 minutes ago; one dispatched, one parked.
      await t.db.query(
        `INSERT INTO outbox_events (account_id, site_id, name, payload, created_at, dispatched_at, parked_at) VALUES
           ($1, $2, 'content.created', '{}', now() - interval '10 minutes', NULL, NULL),
           ($1, $2, 'content.created', '{}', now(), NULL, NULL),
           ($1, $2, 'content.created', '{}', now() - interval '2 hours', now(), NULL),
           ($1, $2, 'content.created', '{}', now() - interval '3 hours', NULL, now())`,
        [tenant.accountId, tenant.siteId],
      );
      // Two campaigns sending (40 of 100 and 5 of 50 recipients recorded), one sent.
      await t.db.query(
        `INSERT INTO newsletter_campaigns (site_id, name, slug, status, recipient_count, audience_count) VALUES
           ($1, 'a', 'a', 'sending', 40, 100), ($1, 'b', 'b', 'sending', 5, 50), ($1, 'c', 'c', 'sent', 7, 7)`,
        [tenant.siteId],
      );

      const text = await scrape();
      expect(sample(text, 'sitebase_queue_jobs_waiting', queue)).toBe(3);
      expect(sample(text, 'sitebase_queue_oldest_due_job_age_seconds', queue)).toBeGreaterThanOrEqual(3600);
      expect(sample(text, 'sitebase_queue_oldest_due_job_age_seconds', queue)).toBeLessThan(3700);
      expect(sample(text, 'sitebase_outbox_events_pending')).toBe(2);
      expect(sample(text, 'sitebase_outbox_events_parked')).toBe(1);
      expect(sample(text, 'sitebase_outbox_lag_seconds')).toBeGreaterThanOrEqual(600);
      expect(sample(text, 'sitebase_outbox_lag_seconds')).toBeLessThan(700);
      expect(sample(text, 'sitebase_campaigns_sending')).toBe(2);
      expect(sample(text, 'sitebase_campaign_recipients_recorded')).toBe(45);
      expect(sample(text, 'sitebase_campaign_audience')).toBe(150);
    });
  });

  describe('on a port of its own (METRICS_PORT), without a token', () => {
    let t: TestApp;
    let port: number;

    beforeAll(async () => {
      port = await freePort();
      t = await startApp({ env: { METRICS_PORT: String(port), JOBS_ENABLED: 'false' } });
    });
    afterAll(() => t.close());

    it('serves GET /metrics there, and nothing else; the main port has no /metrics', async () => {
      await request(t.server).get('/health').expect(200);
      const metricsServer = `http://127.0.0.1:${port}`;
      const res = await request(metricsServer).get('/metrics').expect(200);
      expect(
        sample(res.text, 'sitebase_http_requests_total', { method: 'GET', route: '/health', status_class: '2xx' }),
      ).toBe(1);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
      await request(metricsServer).get('/').expect(404);
      await request(metricsServer).post('/metrics').expect(404);
      expectProblem(await request(t.server).get('/metrics'), 404, 'route_not_found');
    });

    it('closes the port with the app', async () => {
      const other = await startApp({ env: { METRICS_PORT: String(await freePort()), JOBS_ENABLED: 'false' } });
      const url = `http://127.0.0.1:${other.configs.metrics.METRICS_PORT}`;
      await request(url).get('/metrics').expect(200);
      await other.close();
      await expect(request(url).get('/metrics')).rejects.toThrow(/ECONNREFUSED/);
    });
  });
});
