import { Controller, Get, Module } from '@nestjs/common';
import request from 'supertest';
import { ChangeNotifications } from '../../src/database/change-notifications';
import { startApp, TestApp } from '../support/app';
import { statementsDuring } from '../support/statements';
import { createTenant, Tenant } from '../support/tenant';
import { scaled } from '../support/time-scale';
import { expectExactProblem } from '../support/problem';
import { snapshotDatabase } from '../support/db-snapshot';

/** ChangeNotifications' private entry point for every notification, which a test may slow down. */
type Receiving = { receive: (...args: unknown[]) => void };

@Controller('key-cache-probe')
class KeyCacheProbeController {
  @Get()
  keyOnly() {
    return { ok: true };
  }
}

@Module({ controllers: [KeyCacheProbeController] })
class KeyCacheProbeModule {}

describe('verified keys are cached per instance and dropped everywhere at commit', () => {
  let one: TestApp;
  let two: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    // The key limit's counters are flushed to PostgreSQL by a timer: off, so every statement seen is the key check's.
    const options = {
      env: { JOBS_ENABLED: 'false', RATE_LIMIT_KEY_MAX: '0', RATE_LIMIT_SESSION_MAX: '0' },
      extraModules: [KeyCacheProbeModule],
    };
    [one, two] = await Promise.all([startApp(options), startApp(options)]);
    t = await createTenant(one);
  });
  afterAll(() => Promise.all([one.close(), two.close()]));

  const probe = (app: TestApp, key: string) => request(app.server).get('/key-cache-probe').set('x-api-key', key);

  async function newKey(): Promise<{ id: number; key: string }> {
    const res = await t.api.post('/api/v2/api-keys').send({ name: 'cached' });
    expect(res.status).toBe(201);
    return { id: res.body.id, key: res.body.key };
  }

  it('a second request with the same key sends no statement to the database', async () => {
    const { key } = await newKey();
    expect((await probe(two, key)).status).toBe(200);
    const statements = await statementsDuring(async () => {
      const res = await probe(two, key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true });
    });
    expect(statements).toEqual([]);
  });

  it('a key revoked on one instance fails on the other as soon as the revocation commits', async () => {
    const { id, key } = await newKey();
    expect((await probe(one, key)).status).toBe(200);
    expect((await probe(two, key)).status).toBe(200);
    expect((await t.api.delete(`/api/v2/api-keys/${id}`)).status).toBe(204);
    // The revoking instance: at once.
    expectExactProblem(
      await probe(one, key),
      401,
      'invalid_api_key',
      'Unauthorized',
      'The API key is invalid or revoked',
    );
    // The other: when the trigger's NOTIFY arrives, a few milliseconds after the commit.
    const started = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - started < 2000) status = (await probe(two, key)).status;
    expect(status).toBe(401);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a revocation by an operator in SQL reaches every instance too', async () => {
    const { id, key } = await newKey();
    for (const app of [one, two]) expect((await probe(app, key)).status).toBe(200);
    await one.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [id]);
    for (const app of [one, two]) {
      const started = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - started < 2000) status = (await probe(app, key)).status;
      expect(status).toBe(401);
    }
  });

  it('an unknown key is remembered as unknown, and a new key works at once', async () => {
    const statements = await statementsDuring(async () => {
      for (let i = 0; i < 5; i++)
        expect((await probe(one, 'sb_live_unknownunknownunknownunknownunknown1')).status).toBe(401);
    });
    expect(statements.filter((s) => /FROM api_keys/.test(s))).toHaveLength(1);
    const { key } = await newKey();
    expect((await probe(two, key)).status).toBe(200);
  });

  it('a revocation is answered once every instance has read it, however late one reads its notifications', async () => {
    // Instance two reads every notification 300 ms late (an instance under load): a revocation
    // through one must still be refused by two at the caller's very next request.
    const late: Receiving = two.app.get<ChangeNotifications, Receiving>(ChangeNotifications);
    const receive = late.receive.bind(late);
    late.receive = (...args: unknown[]) => void setTimeout(() => receive(...args), 300);
    try {
      const { id, key } = await newKey();
      expect((await probe(two, key)).status).toBe(200);
      const notifications = one.app.get(ChangeNotifications);
      const before = notifications.mark('sitebase_credentials');
      const started = Date.now();
      expect((await t.api.delete(`/api/v2/api-keys/${id}`)).status).toBe(204);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(notifications.mark('sitebase_credentials')).toBeGreaterThan(before);
      expect((await probe(two, key)).status).toBe(401);
    } finally {
      late.receive = receive;
    }
  });

  it('a change that reaches no cache does not hold its caller for long when an instance never answers', async () => {
    const mute: Receiving = two.app.get<ChangeNotifications, Receiving>(ChangeNotifications);
    const receive = mute.receive.bind(mute);
    mute.receive = () => undefined;
    try {
      const started = Date.now();
      await one.app.get(ChangeNotifications).changedEverywhere('sitebase_sessions');
      expect(Date.now() - started).toBeLessThan(scaled(2000));
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    } finally {
      mute.receive = receive;
    }
  });

  /** Probes `app` with `key` until it is refused (at most 2 s): how long that took, or null. */
  async function refusedWithin(app: TestApp, key: string): Promise<number | null> {
    const started = Date.now();
    while (Date.now() - started < 2000) if ((await probe(app, key)).status === 401) return Date.now() - started;
    return null;
  }

  it('a roll with no grace on one instance ends the cached old secret on the other as it commits', async () => {
    const { id, key } = await newKey();
    for (const app of [one, two]) expect((await probe(app, key)).status).toBe(200);
    const rolled = await t.api.post(`/api/v2/api-keys/${id}/roll`).send({ gracePeriodSeconds: 0 });
    expect(rolled.status).toBe(200);
    expect((await probe(one, key)).status).toBe(401);
    expect(await refusedWithin(two, key)).not.toBeNull();
    for (const app of [one, two]) expect((await probe(app, rolled.body.key)).status).toBe(200);
  });

  it('a secret cached as current on another instance may not manage keys there once the roll answers', async () => {
    const { id, key } = await newKey();
    for (const app of [one, two]) expect((await probe(app, key)).status).toBe(200);
    const rolled = await t.api.post(`/api/v2/api-keys/${id}/roll`);
    expect(rolled.status).toBe(200);
    const create = (secret: string) =>
      request(two.server).post('/api/v2/api-keys').set('x-api-key', secret).send({ name: 'minted' });
    const before = await snapshotDatabase(one.db);
    expectExactProblem(
      await create(key),
      403,
      'secret_replaced',
      'Forbidden',
      "This key's secret was replaced by a roll; a replaced secret cannot manage keys, the account or its payment connections: use the key's new secret",
    );
    expect(await snapshotDatabase(one.db)).toEqual(before);
    // It still works there for the rest, and the new secret manages keys.
    expect((await probe(two, key)).status).toBe(200);
    expect((await create(rolled.body.key)).status).toBe(201);
  });

  it("an operator ending a previous secret's grace in SQL reaches every instance", async () => {
    const { id, key } = await newKey();
    expect((await t.api.post(`/api/v2/api-keys/${id}/roll`)).status).toBe(200);
    for (const app of [one, two]) expect((await probe(app, key)).status).toBe(200);
    await one.db.query('UPDATE api_keys SET previous_expires_at = now() WHERE id = $1', [id]);
    for (const app of [one, two]) expect(await refusedWithin(app, key)).not.toBeNull();
  });

  it("a cached previous secret stops at its grace's end, with nothing to announce it", async () => {
    const { id, key } = await newKey();
    const graceMs = Math.ceil(scaled(1000) / 1000) * 1000;
    const rolled = await t.api.post(`/api/v2/api-keys/${id}/roll`).send({ gracePeriodSeconds: graceMs / 1000 });
    expect(rolled.status).toBe(200);
    const graceEnds = Date.parse(rolled.body.previousSecret.expiresAt);
    expect((await probe(two, key)).status).toBe(200);
    const statements = await statementsDuring(async () => {
      expect((await probe(two, key)).status).toBe(200);
    });
    expect(statements.filter((s) => /FROM api_keys/.test(s))).toEqual([]);
    const notifications = two.app.get(ChangeNotifications);
    const mark = notifications.mark('sitebase_credentials');
    let status = 200;
    while (status === 200 && Date.now() < graceEnds + 2000) status = (await probe(two, key)).status;
    expect(status).toBe(401);
    // Refused from the cache's own bound (API_KEY_CACHE_TTL_MS is a minute), not from a reset.
    expect(Date.now()).toBeGreaterThanOrEqual(graceEnds);
    expect(notifications.mark('sitebase_credentials')).toBe(mark);
    expect((await probe(two, rolled.body.key)).status).toBe(200);
  });

  it('while notifications are down the cache is bypassed: every request reads the database', async () => {
    const { key } = await newKey();
    expect((await probe(one, key)).status).toBe(200);
    const notifications = one.app.get(ChangeNotifications);
    notifications.live = false;
    try {
      const statements = await statementsDuring(async () => {
        expect((await probe(one, key)).status).toBe(200);
      });
      expect(statements.filter((s) => /FROM api_keys/.test(s))).toHaveLength(1);
    } finally {
      notifications.live = true;
    }
  });
});
