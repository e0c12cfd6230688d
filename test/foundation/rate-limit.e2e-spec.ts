import { Controller, Get, Module } from '@nestjs/common';
import request from 'supertest';
import { Public } from '../../src/common/auth/decorators';
import { PgThrottlerStorage } from '../../src/common/http/pg-throttler.storage';
import { startApp, TestApp } from '../support/app';
import { createTenant, Tenant } from '../support/tenant';
import { expectExactProblem } from './helpers';

@Controller('rate-limit-probe')
class RateLimitProbeController {
  @Public()
  @Get()
  open() {
    return { ok: true };
  }

  @Public()
  @Get('other')
  other() {
    return { ok: true };
  }

  @Public()
  @Get('third')
  third() {
    return { ok: true };
  }

  @Get('key')
  keyOnly() {
    return { ok: true };
  }
}

@Module({ controllers: [RateLimitProbeController] })
class RateLimitProbeModule {}

interface RateRow {
  key: string;
  hits: number;
  expires_at: Date;
  blocked_until: Date | null;
}

describe('public rate limit (RATE_LIMIT_PUBLIC_MAX=3), shared by two instances', () => {
  let one: TestApp;
  let two: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    const options = { env: { RATE_LIMIT_PUBLIC_MAX: '3', JOBS_ENABLED: 'false' }, extraModules: [RateLimitProbeModule] };
    [one, two] = await Promise.all([startApp(options), startApp(options)]);
    tenant = await createTenant(one);
  });
  afterAll(() => Promise.all([one.close(), two.close()]));

  const rows = (): Promise<RateRow[]> => one.db.query('SELECT key, hits, expires_at, blocked_until FROM rate_limits');
  /** The rows `action` created: this probe's counters (routes of other files have other keys). */
  async function newRows(action: () => Promise<void>): Promise<RateRow[]> {
    const before = new Set((await rows()).map((r) => r.key));
    await action();
    return (await rows()).filter((r) => !before.has(r.key));
  }

  it('the 4th call in the window is a 429 rate_limited with Retry-After, counted in rate_limits across instances', async () => {
    const statuses: number[] = [];
    let limited: request.Response | undefined;
    const created = await newRows(async () => {
      for (const app of [one, two, one]) statuses.push((await request(app.server).get('/rate-limit-probe')).status);
      limited = await request(two.server).get('/rate-limit-probe');
    });
    expect(statuses).toEqual([200, 200, 200]);
    const res = limited!;
    const retryAfter = Number(res.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expectExactProblem(res, 429, 'rate_limited', 'Too many requests', `Retry after ${retryAfter} s`);

    expect(created).toEqual([{ key: expect.any(String), hits: 4, expires_at: expect.any(Date), blocked_until: expect.any(Date) }]);
    const [row] = created;
    expect(row.blocked_until!.getTime()).toBeGreaterThan(Date.now());
    expect(row.expires_at.getTime() - Date.now()).toBeLessThanOrEqual(60_000);

    // Still blocked on either instance.
    const again = await request(one.server).get('/rate-limit-probe');
    expectExactProblem(again, 429, 'rate_limited', 'Too many requests', `Retry after ${Number(again.headers['retry-after'])} s`);
    expect((await rows()).find((r) => r.key === row.key)?.hits).toBe(5);

    // Once the window and the block are over, the counter starts again.
    await one.db.query("UPDATE rate_limits SET expires_at = now() - interval '1 second', blocked_until = now() - interval '1 second' WHERE key = $1", [row.key]);
    const after = await request(two.server).get('/rate-limit-probe');
    expect(after.status).toBe(200);
    expect(after.body).toEqual({ ok: true });
    expect((await rows()).find((r) => r.key === row.key)).toEqual({ ...row, hits: 1, expires_at: expect.any(Date), blocked_until: null });
  });

  it('each public route has its own counter', async () => {
    const created = await newRows(async () => {
      for (const app of [one, two, one]) expect((await request(app.server).get('/rate-limit-probe/other')).status).toBe(200);
      // Below half the limit an instance counts in memory and writes once a second; flush now.
      await Promise.all([one, two].map((app) => app.app.get(PgThrottlerStorage).flush()));
    });
    expect(created).toEqual([{ key: expect.any(String), hits: 3, expires_at: expect.any(Date), blocked_until: null }]);
  });

  it('below half the limit, hits are counted in memory and written in one batch per instance', async () => {
    const before = new Set((await rows()).map((r) => r.key));
    for (const app of [one, two]) expect((await request(app.server).get('/rate-limit-probe/third')).status).toBe(200);
    expect((await rows()).filter((r) => !before.has(r.key))).toEqual([]);
    await Promise.all([one, two].map((app) => app.app.get(PgThrottlerStorage).flush()));
    expect((await rows()).filter((r) => !before.has(r.key))).toEqual([
      { key: expect.any(String), hits: 2, expires_at: expect.any(Date), blocked_until: null },
    ]);
  });

  it('a key-only route is not limited', async () => {
    const created = await newRows(async () => {
      for (let i = 0; i < 6; i++) {
        const res = await request((i % 2 ? two : one).server).get('/rate-limit-probe/key').set('x-api-key', tenant.key);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ ok: true });
      }
    });
    expect(created).toEqual([]);
  });
});
