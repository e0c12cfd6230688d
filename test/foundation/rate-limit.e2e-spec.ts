import { Controller, Get, Module } from '@nestjs/common';
import request from 'supertest';
import { Public } from '../../src/common/auth/decorators';
import { SessionVerifiers } from '../../src/common/auth/session-verifiers';
import { RateLimitStore } from '../../src/common/rate-limit/rate-limit.store';
import { startApp, TestApp } from '../support/app';
import { statementsDuring } from '../support/statements';
import { createTenant, Tenant } from '../support/tenant';
import { expectExactProblem } from '../support/problem';

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
  @Get('flood')
  flood() {
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
    const options = {
      env: { RATE_LIMIT_PUBLIC_MAX: '3', JOBS_ENABLED: 'false' },
      extraModules: [RateLimitProbeModule],
    };
    [one, two] = await Promise.all([startApp(options), startApp(options)]);
    tenant = await createTenant(one);
  });
  // Blocks live in the worker's database, which later test files share: leave none behind.
  afterAll(async () => {
    await one.db.query('DELETE FROM rate_limits');
    await Promise.all([one.close(), two.close()]);
  });

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

    expect(created).toEqual([
      { key: expect.any(String), hits: 4, expires_at: expect.any(Date), blocked_until: expect.any(Date) },
    ]);
    const [row] = created;
    expect(row.blocked_until!.getTime()).toBeGreaterThan(Date.now());
    expect(row.expires_at.getTime() - Date.now()).toBeLessThanOrEqual(60_000);

    // Still blocked on either instance. Instance one learns of the block from its next exact
    // upsert; from then on both answer from memory and write the hits in their next batch.
    for (const app of [one, two, one]) {
      const again = await request(app.server).get('/rate-limit-probe');
      expectExactProblem(
        again,
        429,
        'rate_limited',
        'Too many requests',
        `Retry after ${Number(again.headers['retry-after'])} s`,
      );
    }
    expect((await rows()).find((r) => r.key === row.key)?.hits).toBe(5);
    await Promise.all([one, two].map((app) => app.app.get(RateLimitStore).flush()));
    expect((await rows()).find((r) => r.key === row.key)?.hits).toBe(7);

    // Once the window and the block are over, the counter starts again.
    // A minute passes, for the shared row and for what each instance remembers.
    await one.db.query(
      "UPDATE rate_limits SET expires_at = now() - interval '1 second', blocked_until = now() - interval '1 second' WHERE key = $1",
      [row.key],
    );
    const later = Date.now() + 61_000;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => later);
    try {
      const after = await request(two.server).get('/rate-limit-probe');
      expect(after.status).toBe(200);
      expect(after.body).toEqual({ ok: true });
      await two.app.get(RateLimitStore).flush();
    } finally {
      clock.mockRestore();
    }
    expect((await rows()).find((r) => r.key === row.key)).toEqual({
      ...row,
      hits: 1,
      expires_at: expect.any(Date),
      blocked_until: null,
    });
  });

  it('each public route has its own counter', async () => {
    const created = await newRows(async () => {
      for (const app of [one, two, one])
        expect((await request(app.server).get('/rate-limit-probe/other')).status).toBe(200);
      // Below half the limit an instance counts in memory and writes once a second; flush now.
      await Promise.all([one, two].map((app) => app.app.get(RateLimitStore).flush()));
    });
    expect(created).toEqual([{ key: expect.any(String), hits: 3, expires_at: expect.any(Date), blocked_until: null }]);
  });

  it('below half the limit, hits are counted in memory and written in one batch per instance', async () => {
    const before = new Set((await rows()).map((r) => r.key));
    for (const app of [one, two]) expect((await request(app.server).get('/rate-limit-probe/third')).status).toBe(200);
    expect((await rows()).filter((r) => !before.has(r.key))).toEqual([]);
    await Promise.all([one, two].map((app) => app.app.get(RateLimitStore).flush()));
    expect((await rows()).filter((r) => !before.has(r.key))).toEqual([
      { key: expect.any(String), hits: 2, expires_at: expect.any(Date), blocked_until: null },
    ]);
  });

  it('a key-only route is not limited', async () => {
    const created = await newRows(async () => {
      for (let i = 0; i < 6; i++) {
        const res = await request((i % 2 ? two : one).server)
          .get('/rate-limit-probe/key')
          .set('x-api-key', tenant.key);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ ok: true });
      }
    });
    expect(created).toEqual([]);
  });
  it('a valid key is never limited by IP on a public route: it counts on its own key only', async () => {
    const created = await newRows(async () => {
      for (let i = 0; i < 8; i++) {
        const res = await request((i % 2 ? two : one).server)
          .get('/rate-limit-probe')
          .set('x-api-key', tenant.key);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ ok: true });
      }
      await Promise.all([one, two].map((app) => app.app.get(RateLimitStore).flush()));
    });
    // RATE_LIMIT_KEY_MAX is on by default (10,000 a minute): the key's own counter, no address's.
    expect(created.map((r) => r.key)).toEqual([`key:${tenant.keyId}`]);
  });

  it('a site-user session is never limited by IP on a public route: it counts on its own session only', async () => {
    // The users module registers the real verifier; this one stands in for a signed-in user.
    const session = {
      kind: 'user' as const,
      accountId: tenant.accountId,
      siteId: tenant.siteId,
      userId: 1,
      // Far from the ids of real sessions other files of this worker make (their counters share the table).
      sessionId: 900_000_001,
    };
    for (const app of [one, two])
      app.app.get(SessionVerifiers).register(async (token) => (token === 'probe-session-token' ? session : null));
    const created = await newRows(async () => {
      for (let i = 0; i < 8; i++) {
        const res = await request((i % 2 ? two : one).server)
          .get('/rate-limit-probe/other')
          .set('authorization', 'Bearer probe-session-token');
        expect(res.status).toBe(200);
      }
      await Promise.all([one, two].map((app) => app.app.get(RateLimitStore).flush()));
    });
    expect(created.map((r) => r.key)).toEqual(['session:900000001']);
  });

  it('a blocked client is answered from memory: no statement reaches PostgreSQL per refused request', async () => {
    const path = '/rate-limit-probe/flood';
    // Block the client on both instances (each learns of the block from one exact upsert).
    for (let i = 0; i < 6; i++) await request((i % 2 ? two : one).server).get(path);
    for (const app of [one, two]) expect((await request(app.server).get(path)).status).toBe(429);
    await Promise.all([one, two].map((app) => app.app.get(RateLimitStore).flush()));

    let refused = 0;
    const statements = await statementsDuring(async () => {
      for (let i = 0; i < 60; i++) {
        const res = await request((i % 2 ? two : one).server).get(path);
        expect(res.headers['retry-after']).toMatch(/^\d+$/);
        if (res.status === 429) refused++;
      }
    });
    expect(refused).toBe(60);
    // At most the once-a-second batch of each instance, never a statement per request.
    expect(statements.filter((sql) => !/unnest/.test(sql))).toEqual([]);
    expect(statements.length).toBeLessThanOrEqual(4);
    await Promise.all([one, two].map((app) => app.app.get(RateLimitStore).flush()));
    // This client's row for the flood route (the database may hold other suites' counters too).
    const row = (await rows()).find((r) => r.key.includes('flood'));
    expect(row).toEqual({
      key: expect.stringContaining('flood'),
      hits: 68,
      expires_at: expect.any(Date),
      blocked_until: expect.any(Date),
    });
  });
});

describe('shared anonymous limit with two instances: within the documented slack', () => {
  let one: TestApp;
  let two: TestApp;
  const LIMIT = 10;

  beforeAll(async () => {
    const options = {
      env: { RATE_LIMIT_PUBLIC_MAX: String(LIMIT), JOBS_ENABLED: 'false' },
      extraModules: [RateLimitProbeModule],
    };
    [one, two] = await Promise.all([startApp(options), startApp(options)]);
  });
  // Blocks live in the worker's database, which later test files share: leave none behind.
  afterAll(async () => {
    await one.db.query('DELETE FROM rate_limits');
    await Promise.all([one.close(), two.close()]);
  });

  it('concurrent clients on both instances get at least the limit and at most limit + N × limit/2', async () => {
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => request((i % 2 ? two : one).server).get('/rate-limit-probe/third')),
    );
    const served = results.filter((r) => r.status === 200).length;
    expect(results.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(served).toBeGreaterThanOrEqual(LIMIT);
    expect(served).toBeLessThanOrEqual(LIMIT + 2 * (LIMIT / 2));
  });
});

describe('per-key limit (RATE_LIMIT_KEY_MAX=4)', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    app = await startApp({
      env: { RATE_LIMIT_PUBLIC_MAX: '2', RATE_LIMIT_KEY_MAX: '4', JOBS_ENABLED: 'false' },
      extraModules: [RateLimitProbeModule],
    });
    tenant = await createTenant(app);
  });
  afterAll(async () => {
    await app.db.query('DELETE FROM rate_limits');
    await app.close();
  });

  it('a key gets its own counter on every route, far from the anonymous one', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (
          await request(app.server)
            .get(i % 2 ? '/rate-limit-probe/key' : '/rate-limit-probe/other')
            .set('x-api-key', tenant.key)
        ).status,
      );
    expect(statuses).toEqual([200, 200, 200, 200]);
    const limited = await request(app.server).get('/rate-limit-probe/key').set('x-api-key', tenant.key);
    expectExactProblem(
      limited,
      429,
      'rate_limited',
      'Too many requests',
      `Retry after ${Number(limited.headers['retry-after'])} s`,
    );
    const [row] = await app.db.query("SELECT key, hits FROM rate_limits WHERE key LIKE 'key:%'");
    expect(row).toEqual({ key: expect.stringMatching(/^key:\d+$/), hits: 5 });
  });
});

describe('per-session limit (RATE_LIMIT_SESSION_MAX=3), apart from the key limit', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    app = await startApp({
      env: { RATE_LIMIT_SESSION_MAX: '3', JOBS_ENABLED: 'false' },
      extraModules: [RateLimitProbeModule],
    });
    tenant = await createTenant(app);
    const session = { kind: 'user' as const, accountId: tenant.accountId, siteId: tenant.siteId, userId: 1 };
    app.app
      .get(SessionVerifiers)
      .register(async (token) =>
        token === 'session-one'
          ? { ...session, sessionId: 900_000_101 }
          : token === 'session-two'
            ? { ...session, sessionId: 900_000_102 }
            : null,
      );
  });
  afterAll(async () => {
    await app.db.query('DELETE FROM rate_limits');
    await app.close();
  });

  it('a session past its limit is a 429 with Retry-After; another session and the site key go on', async () => {
    const as = (token: string) => request(app.server).get('/rate-limit-probe').set('authorization', `Bearer ${token}`);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await as('session-one')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await as('session-one');
    expectExactProblem(
      limited,
      429,
      'rate_limited',
      'Too many requests',
      `Retry after ${Number(limited.headers['retry-after'])} s`,
    );
    expect((await as('session-two')).status).toBe(200);
    // The key's limit is RATE_LIMIT_KEY_MAX (10,000 by default), far above the session's.
    for (let i = 0; i < 5; i++)
      expect((await request(app.server).get('/rate-limit-probe').set('x-api-key', tenant.key)).status).toBe(200);
  });
});

describe('a key on a public route of a site it cannot reach', () => {
  let app: TestApp;
  let owner: Tenant;
  let stranger: Tenant;

  beforeAll(async () => {
    app = await startApp({ env: { RATE_LIMIT_PUBLIC_MAX: '3', JOBS_ENABLED: 'false' } });
    [owner, stranger] = await Promise.all([createTenant(app), createTenant(app)]);
  });
  afterAll(async () => {
    await app.db.query('DELETE FROM rate_limits');
    await app.close();
  });

  it("reads as anonymous and is limited by IP like one, while the owner's key is not", async () => {
    const path = `/api/v2/sites/${owner.siteName}/content`;
    // Counters are per address and route, shared through the worker's database: start this one afresh.
    await app.db.query("DELETE FROM rate_limits WHERE key LIKE '%ContentController.listContent'");
    const strangers: number[] = [];
    for (let i = 0; i < 4; i++)
      strangers.push((await request(app.server).get(path).set('x-api-key', stranger.key)).status);
    expect(strangers).toEqual([200, 200, 200, 429]);
    for (let i = 0; i < 5; i++)
      expect((await request(app.server).get(path).set('x-api-key', owner.key)).status).toBe(200);
  });
});
