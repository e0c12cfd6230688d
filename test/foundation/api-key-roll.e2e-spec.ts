import { createHash } from 'node:crypto';
import request from 'supertest';
import { ApiKeyEntity } from '../../src/api-keys/entities/api-key.entity';
import { OutboxEventEntity } from '../../src/common/outbox/outbox-event.entity';
import { eventually, TestApp } from '../support/app';
import { ISO } from '../support/matchers';
import { expectExactProblem } from '../support/problem';
import { queriesDuring } from '../support/statements';
import { createTenant, Tenant, uniqueName, withTenants } from '../support/tenant';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const DAY_MS = 86_400_000;

/** Issue 34, slice 3: `POST /api/v2/api-keys/{id}/roll` (docs/foundation.md, "Rolling"). */
describe('POST /api/v2/api-keys/:id/roll', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  const ctx = withTenants(2);
  beforeAll(() => ([t, [a, b]] = [ctx.t, ctx.tenants]));

  const keys = () => t.db.getRepository(ApiKeyEntity);
  const rolledEvents = (accountId: number) =>
    t.db.getRepository(OutboxEventEntity).find({ where: { accountId, name: 'api_key.rolled' }, order: { id: 'ASC' } });
  /** The status a request made with `key` gets: 200 while it works, 401 once it does not. */
  const statusWith = async (key: string) =>
    (await request(t.server).get('/api/v2/api-keys').set('x-api-key', key)).status;
  const roll = (by: Tenant, id: number, body?: object) => {
    const req = by.api.post(`/api/v2/api-keys/${id}/roll`);
    return body === undefined ? req : req.send(body);
  };
  const newKey = async (by: Tenant, body: object = {}): Promise<{ id: number; key: string }> => {
    const res = await by.api.post('/api/v2/api-keys').send({ name: uniqueName('roll'), ...body });
    expect(res.status).toBe(201);
    return { id: res.body.id, key: res.body.key };
  };

  it('gives the key a new secret shown once; both work during the grace, only the new one after it', async () => {
    const expiresAt = new Date(Date.now() + 30 * DAY_MS).toISOString();
    const old = await newKey(a, { siteIds: [a.siteId], permissions: ['content:read'], expiresAt });
    // The old secret was last used two minutes ago: the roll hands that use to the previous secret.
    await t.db.query("UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = $1", [old.id]);
    const before = await keys().findOneByOrFail({ id: old.id });

    const started = Date.now();
    const res = await roll(a, old.id, { gracePeriodSeconds: 3600 });
    expect(res.status).toBe(200);
    const next: string = res.body.key;
    expect(next).toMatch(/^sb_live_[A-Za-z0-9]{40}$/);
    expect(res.body).toEqual({
      id: old.id,
      name: before.name,
      prefix: next.slice(0, 12),
      last4: next.slice(-4),
      siteIds: [a.siteId],
      permissions: ['content:read'],
      kind: 'secret',
      allowedOrigins: null,
      rateLimitPerMinute: null,
      createdAt: before.createdAt.toISOString(),
      lastUsedAt: null,
      expiresAt,
      previousSecret: {
        prefix: old.key.slice(0, 12),
        last4: old.key.slice(-4),
        expiresAt: ISO,
        lastUsedAt: before.lastUsedAt!.toISOString(),
      },
      key: next,
    });
    const graceEnds = Date.parse(res.body.previousSecret.expiresAt);
    expect(graceEnds).toBeGreaterThanOrEqual(started + 3_600_000 - 1_000);
    expect(graceEnds).toBeLessThanOrEqual(Date.now() + 3_600_000);

    const [row] = await t.db.query('SELECT * FROM api_keys WHERE id = $1', [old.id]);
    expect(row).toEqual(
      expect.objectContaining({
        key_hash: sha256(next),
        prefix: next.slice(0, 12),
        last4: next.slice(-4),
        last_used_at: null,
        previous_key_hash: sha256(old.key),
        previous_prefix: old.key.slice(0, 12),
        previous_last4: old.key.slice(-4),
        previous_expires_at: new Date(graceEnds),
        previous_last_used_at: before.lastUsedAt,
        expires_at: new Date(expiresAt),
        revoked_at: null,
      }),
    );
    expect(await rolledEvents(a.accountId)).toEqual([
      expect.objectContaining({
        siteId: null,
        payload: { id: old.id, previousExpiresAt: res.body.previousSecret.expiresAt },
      }),
    ]);

    // content:read only: a site read proves each secret.
    const read = (key: string) => request(t.server).get(`/api/v2/sites/${a.siteName}/content`).set('x-api-key', key);
    expect((await read(old.key)).status).toBe(200);
    expect((await read(next)).status).toBe(200);
    // The grace is over (moved in the database): the trigger's NOTIFY drops the cached secret a
    // few milliseconds after the commit, long before the cache's own minute.
    await t.db.query("UPDATE api_keys SET previous_expires_at = now() - interval '1 second' WHERE id = $1", [old.id]);
    const ended = Date.now();
    let refused = await read(old.key);
    while (refused.status === 200 && Date.now() - ended < 2_000) refused = await read(old.key);
    expectExactProblem(refused, 401, 'invalid_api_key', 'Unauthorized', 'The API key is invalid or revoked');
    expect((await read(next)).status).toBe(200);
    const after = await a.api.get(`/api/v2/api-keys/${old.id}`);
    expect([after.status, after.body.previousSecret, after.body.prefix]).toEqual([200, null, next.slice(0, 12)]);
  });

  it('records the last use of each secret apart: the old one used during the grace shows who still uses it', async () => {
    const old = await newKey(a);
    await t.db.query("UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = $1", [old.id]);
    const next: string = (await roll(a, old.id)).body.key;
    const used = async (): Promise<Record<string, Date | null>> =>
      (await t.db.query('SELECT last_used_at, previous_last_used_at FROM api_keys WHERE id = $1', [old.id]))[0];
    const rolledAt = Date.now();

    expect(await statusWith(old.key)).toBe(200);
    await eventually(async () =>
      (await used()).previous_last_used_at!.getTime() > rolledAt - 1_000 ? true : undefined,
    );
    expect((await used()).last_used_at).toBeNull();

    expect(await statusWith(next)).toBe(200);
    await eventually(async () => (((await used()).last_used_at?.getTime() ?? 0) > rolledAt - 1_000 ? true : undefined));
    const listed = await a.api.get(`/api/v2/api-keys/${old.id}`);
    expect(listed.body).toEqual(
      expect.objectContaining({ lastUsedAt: ISO, previousSecret: expect.objectContaining({ lastUsedAt: ISO }) }),
    );
  });

  it('without a body the grace is one day, never past the key’s own expiry', async () => {
    const open = await newKey(a);
    const plain = await roll(a, open.id);
    expect(plain.status).toBe(200);
    expect(Date.parse(plain.body.previousSecret.expiresAt) - Date.now()).toBeGreaterThan(DAY_MS - 60_000);
    expect(Date.parse(plain.body.previousSecret.expiresAt) - Date.now()).toBeLessThanOrEqual(DAY_MS);

    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const short = await newKey(a, { expiresAt });
    const res = await roll(a, short.id, {});
    expect([res.status, res.body.previousSecret?.expiresAt, res.body.expiresAt]).toEqual([200, expiresAt, expiresAt]);
  });

  it('a grace of 0 ends the old secret at once', async () => {
    const old = await newKey(a);
    expect(await statusWith(old.key)).toBe(200);
    const res = await roll(a, old.id, { gracePeriodSeconds: 0 });
    expect([res.status, res.body.previousSecret]).toEqual([200, null]);
    expect(await statusWith(old.key)).toBe(401);
    expect(await statusWith(res.body.key)).toBe(200);
    const [event] = (await rolledEvents(a.accountId)).filter((e) => e.payload.id === old.id);
    expect(Math.abs(Date.parse(event.payload.previousExpiresAt as string) - Date.now())).toBeLessThan(60_000);
  });

  it('rolling again ends the previous secret at once: only one is kept', async () => {
    const first = await newKey(a);
    const second: string = (await roll(a, first.id)).body.key;
    expect(await statusWith(first.key)).toBe(200);
    const res = await roll(a, first.id);
    expect(res.status).toBe(200);
    const third: string = res.body.key;
    expect(res.body.previousSecret).toEqual(
      expect.objectContaining({ prefix: second.slice(0, 12), last4: second.slice(-4) }),
    );
    expect(await statusWith(first.key)).toBe(401);
    expect(await statusWith(second)).toBe(200);
    expect(await statusWith(third)).toBe(200);
    expect(
      await t.db.query('SELECT count(*)::int AS n FROM api_keys WHERE $1 IN (key_hash, previous_key_hash)', [
        sha256(first.key),
      ]),
    ).toEqual([{ n: 0 }]);
  });

  it('the key in use may roll itself; its answer carries the new secret', async () => {
    const x = await createTenant(t);
    const res = await roll(x, x.keyId, { gracePeriodSeconds: 600 });
    expect([res.status, res.body.id]).toEqual([200, x.keyId]);
    expect(await statusWith(x.key)).toBe(200);
    expect(await statusWith(res.body.key)).toBe(200);
  });

  it('a limited key cannot roll a key that may do more than itself (403, nothing changes), but may roll one no stronger', async () => {
    const limited = await newKey(a, { permissions: ['api-keys:write'] });
    const strong = await newKey(a);
    const before = await keys().findOneByOrFail({ id: strong.id });
    const events = (await rolledEvents(a.accountId)).length;
    const res = await request(t.server)
      .post(`/api/v2/api-keys/${strong.id}/roll`)
      .set('x-api-key', limited.key)
      .send({ gracePeriodSeconds: 0 });
    expectExactProblem(
      res,
      403,
      'insufficient_permission',
      'Forbidden',
      'A key cannot roll a key that may do more than itself: this key lacks `*`',
    );
    expect({ ...(await keys().findOneByOrFail({ id: strong.id })), lastUsedAt: null }).toEqual({
      ...before,
      lastUsedAt: null,
    });
    expect(await statusWith(strong.key)).toBe(200);
    expect(await rolledEvents(a.accountId)).toHaveLength(events);

    const weaker = await newKey(a, { permissions: ['api-keys:read'] });
    const ok = await request(t.server).post(`/api/v2/api-keys/${weaker.id}/roll`).set('x-api-key', limited.key);
    expect([ok.status, ok.body.permissions]).toEqual([200, ['api-keys:read']]);
  });

  it("another account's key, a revoked key and an unknown id are 404, and stay as they were", async () => {
    const before = await keys().findOneByOrFail({ id: b.keyId });
    expectExactProblem(await roll(a, b.keyId), 404, 'not_found', 'Not found', 'API key not found');
    expect({ ...(await keys().findOneByOrFail({ id: b.keyId })), lastUsedAt: null }).toEqual({
      ...before,
      lastUsedAt: null,
    });
    const gone = await newKey(a);
    expect((await a.api.delete(`/api/v2/api-keys/${gone.id}`)).status).toBe(204);
    expectExactProblem(await roll(a, gone.id), 404, 'not_found', 'Not found', 'API key not found');
    expect((await keys().findOneByOrFail({ id: gone.id })).previousKeyHash).toBeNull();
    expectExactProblem(await roll(a, 999_999_999), 404, 'not_found', 'Not found', 'API key not found');
  });

  it.each([
    ['negative', { gracePeriodSeconds: -1 }, 'must not be less than 0'],
    ['over 7 days', { gracePeriodSeconds: 604_801 }, 'must not be greater than 604800'],
    ['not an integer', { gracePeriodSeconds: 1.5 }, 'must be an integer number'],
    ['a string', { gracePeriodSeconds: '60' }, 'must be an integer number'],
    ['null', { gracePeriodSeconds: null }, 'cannot be null'],
  ])('a grace that is %s is a 400 naming it, and nothing changes', async (_label, body, message) => {
    const k = await newKey(a);
    const res = await roll(a, k.id, body);
    expectExactProblem(res, 400, 'validation_failed', 'Validation failed', '1 field is invalid', [
      { path: 'gracePeriodSeconds', message },
    ]);
    expect((await keys().findOneByOrFail({ id: k.id })).keyHash).toBe(sha256(k.key));
  });

  it('an unknown member or a non-numeric id is a 400', async () => {
    const k = await newKey(a);
    expectExactProblem(
      await roll(a, k.id, { grace: 60 }),
      400,
      'validation_failed',
      'Validation failed',
      '1 field is invalid',
      [{ path: 'grace', message: 'is not allowed' }],
    );
    expectExactProblem(
      await a.api.post('/api/v2/api-keys/abc/roll'),
      400,
      'validation_failed',
      'Validation failed',
      '1 field is invalid',
      [{ path: 'id', message: 'must be a positive integer' }],
    );
    expect((await keys().findOneByOrFail({ id: k.id })).keyHash).toBe(sha256(k.key));
  });

  it('a retried roll with the same Idempotency-Key replays the first answer and rolls once', async () => {
    const k = await newKey(a);
    const idem = uniqueName('idem');
    const first = await roll(a, k.id, { gracePeriodSeconds: 60 }).set('Idempotency-Key', idem);
    const again = await roll(a, k.id, { gracePeriodSeconds: 60 }).set('Idempotency-Key', idem);
    expect([first.status, again.status, again.headers['idempotent-replayed']]).toEqual([200, 200, 'true']);
    expect(again.body).toEqual(first.body);
    expect(await statusWith(k.key)).toBe(200);
    expect(await statusWith(first.body.key)).toBe(200);
    expect((await rolledEvents(a.accountId)).filter((e) => e.payload.id === k.id)).toHaveLength(1);
  });

  it('verifying finds a key by either secret in one statement, each through its index', async () => {
    const k = await newKey(a);
    const next: string = (await roll(a, k.id)).body.key;
    const sent = await queriesDuring(async () => {
      expect(await statusWith(next)).toBe(200);
    });
    const lookups = sent.filter((s) => /FROM api_keys/.test(s.text));
    expect(lookups).toHaveLength(1);
    const plan = await t.db.transaction(async (em) => {
      await em.query('SET LOCAL enable_seqscan = off');
      const rows: Array<{ 'QUERY PLAN': string }> = await em.query(`EXPLAIN ${lookups[0].text}`, lookups[0].values);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).not.toMatch(/Seq Scan on api_keys/);
    expect(plan).toContain('api_keys_key_hash_key');
    expect(plan).toContain('api_keys_previous_key_hash_key');
  });
});
