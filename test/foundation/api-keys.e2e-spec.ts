import { createHash } from 'node:crypto';
import request from 'supertest';
import { ApiKeyEntity } from '../../src/api-keys/entities/api-key.entity';
import { idempotencyKeyHash } from '../../src/common/idempotency/sealed-response';
import { OutboxEventEntity } from '../../src/common/outbox/outbox-event.entity';
import { startApp, TestApp } from '../support/app';
import { createTenant, Tenant, uniqueName } from '../support/tenant';
import { ISO, NULL_OR_ISO } from '../support/matchers';
import { expectExactProblem } from '../support/problem';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('/api/v2/api-keys', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startApp();
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(() => t.close());

  const keys = () => t.db.getRepository(ApiKeyEntity);
  const events = (accountId: number, name: string) =>
    t.db.getRepository(OutboxEventEntity).find({ where: { accountId, name }, order: { id: 'ASC' } });

  /** Tables (public schema) whose rows contain `text` anywhere. */
  async function tablesContaining(text: string): Promise<string[]> {
    const tables: Array<{ tablename: string }> = await t.db.query(
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
    );
    const found: string[] = [];
    for (const { tablename } of tables) {
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM "${tablename}" x WHERE strpos(x::text, $1) > 0`,
        [text],
      );
      if (n > 0) found.push(tablename);
    }
    return found;
  }

  describe('GET /api/v2/api-keys', () => {
    it("lists the account's active keys newest first, one page at a time, without secrets", async () => {
      const x = await createTenant(t);
      const second = await x.api.post('/api/v2/api-keys').send({ name: 'second' });
      const third = await x.api.post('/api/v2/api-keys').send({ name: 'third', siteIds: [x.siteId] });
      expect([second.status, third.status]).toEqual([201, 201]);
      const row = (
        k: { id: number; name: string; key: string },
        siteIds: number[] | null,
        lastUsedAt: unknown = null,
      ) => ({
        id: k.id,
        name: k.name,
        prefix: k.key.slice(0, 12),
        last4: k.key.slice(-4),
        siteIds,
        permissions: null,
        kind: 'secret',
        allowedOrigins: null,
        rateLimitPerMinute: null,
        createdAt: ISO,
        lastUsedAt,
        expiresAt: null,
        previousSecret: null,
      });

      const page1 = await x.api.get('/api/v2/api-keys?limit=1');
      expect(page1.status).toBe(200);
      expect(page1.body).toEqual({
        data: [row(third.body, [x.siteId])],
        pagination: { limit: 1, nextCursor: expect.any(String) },
      });
      const page2 = await x.api.get(`/api/v2/api-keys?limit=1&cursor=${page1.body.pagination.nextCursor}`);
      expect(page2.status).toBe(200);
      expect(page2.body).toEqual({
        data: [row(second.body, null)],
        pagination: { limit: 1, nextCursor: expect.any(String) },
      });
      const page3 = await x.api.get(`/api/v2/api-keys?limit=1&cursor=${page2.body.pagination.nextCursor}`);
      expect(page3.status).toBe(200);
      expect(page3.body).toEqual({
        data: [row({ id: x.keyId, name: 'test key', key: x.key }, null, NULL_OR_ISO)],
        pagination: { limit: 1, nextCursor: null },
      });

      const all = await x.api.get('/api/v2/api-keys');
      expect(all.status).toBe(200);
      expect(all.body.data.map((k: { id: number }) => k.id)).toEqual([third.body.id, second.body.id, x.keyId]);
      expect(all.body.pagination).toEqual({ limit: 20, nextCursor: null });
      const text = JSON.stringify([page1.body, page2.body, page3.body, all.body]);
      for (const k of [x.key, second.body.key, third.body.key]) {
        expect(text).not.toContain(k);
        expect(text).not.toContain(sha256(k));
      }
      expect(text).not.toMatch(/keyHash|key_hash|"key"/);
    });

    it('leaves revoked keys out', async () => {
      const x = await createTenant(t);
      const extra = await x.api.post('/api/v2/api-keys').send({ name: 'doomed' });
      expect((await x.api.delete(`/api/v2/api-keys/${extra.body.id}`)).status).toBe(204);
      const res = await x.api.get('/api/v2/api-keys');
      expect(res.status).toBe(200);
      expect(res.body.data.map((k: { id: number }) => k.id)).toEqual([x.keyId]);
    });

    it("shows only the caller's account", async () => {
      const res = await b.api.get('/api/v2/api-keys');
      expect(res.status).toBe(200);
      expect(res.body.data.every((k: { id: number }) => k.id !== a.keyId)).toBe(true);
      const ids = (await keys().findBy({ accountId: b.accountId }))
        .filter((k) => k.revokedAt === null)
        .map((k) => k.id);
      expect(res.body.data.map((k: { id: number }) => k.id).sort()).toEqual(ids.sort());
    });
  });

  describe('GET /api/v2/api-keys/:id', () => {
    it('gets a key by id', async () => {
      const res = await a.api.get(`/api/v2/api-keys/${a.keyId}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: a.keyId,
        name: 'test key',
        prefix: a.key.slice(0, 12),
        last4: a.key.slice(-4),
        siteIds: null,
        permissions: null,
        kind: 'secret',
        allowedOrigins: null,
        rateLimitPerMinute: null,
        createdAt: ISO,
        lastUsedAt: NULL_OR_ISO,
        expiresAt: null,
        previousSecret: null,
      });
    });

    it('answers 404 for a key of another account', async () => {
      const res = await a.api.get(`/api/v2/api-keys/${b.keyId}`);
      expectExactProblem(res, 404, 'not_found', 'Not found', 'API key not found');
    });

    it('answers 404 for a revoked key', async () => {
      const extra = await a.api.post('/api/v2/api-keys').send({ name: 'gone' });
      expect((await a.api.delete(`/api/v2/api-keys/${extra.body.id}`)).status).toBe(204);
      const res = await a.api.get(`/api/v2/api-keys/${extra.body.id}`);
      expectExactProblem(res, 404, 'not_found', 'Not found', 'API key not found');
    });
  });

  describe('POST /api/v2/api-keys', () => {
    it('creates a key: 201, Location, the key shown once, only its hash stored', async () => {
      const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
      const res = await a.api.post('/api/v2/api-keys').send({ name: 'CI deploys', siteIds: [a.siteId], expiresAt });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'CI deploys',
        prefix: res.body.key.slice(0, 12),
        last4: res.body.key.slice(-4),
        siteIds: [a.siteId],
        permissions: null,
        kind: 'secret',
        allowedOrigins: null,
        rateLimitPerMinute: null,
        createdAt: ISO,
        lastUsedAt: null,
        expiresAt,
        previousSecret: null,
        key: expect.stringMatching(/^sb_live_[A-Za-z0-9]{40}$/),
      });
      expect(res.body.prefix).toMatch(/^sb_live_[A-Za-z0-9]{4}$/);
      expect(res.headers.location).toBe(`${t.configs.server.PUBLIC_BASE_URL}/api/v2/api-keys/${res.body.id}`);

      const [row] = await t.db.query('SELECT * FROM api_keys WHERE id = $1', [res.body.id]);
      expect(row).toEqual({
        id: String(res.body.id),
        account_id: String(a.accountId),
        name: 'CI deploys',
        prefix: res.body.prefix,
        last4: res.body.last4,
        key_hash: sha256(res.body.key),
        site_ids: [String(a.siteId)],
        permissions: null,
        kind: 'secret',
        allowed_origins: null,
        rate_limit_per_minute: null,
        created_at: expect.any(Date),
        last_used_at: null,
        expires_at: new Date(expiresAt),
        revoked_at: null,
        previous_key_hash: null,
        previous_prefix: null,
        previous_last4: null,
        previous_expires_at: null,
        previous_last_used_at: null,
      });
      expect(await tablesContaining(res.body.key)).toEqual([]);
      expect(await events(a.accountId, 'api_key.created')).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ siteId: null, payload: { id: res.body.id, name: 'CI deploys', kind: 'secret' } }),
        ]),
      );

      // The key works, and the GET never shows it again.
      const get = await request(t.server).get(`/api/v2/sites/${a.siteName}`).set('x-api-key', res.body.key);
      expect(get.status).toBe(200);
      const again = await a.api.get(`/api/v2/api-keys/${res.body.id}`);
      expect(again.status).toBe(200);
      expect(again.body).not.toHaveProperty('key');
    });

    it('refuses siteIds of another account (403) and creates nothing', async () => {
      const before = await keys().countBy({ accountId: a.accountId });
      const res = await a.api.post('/api/v2/api-keys').send({ name: 'sneaky', siteIds: [a.siteId, b.siteId] });
      expectExactProblem(res, 403, 'site_not_in_account', 'Forbidden', 'Every site id must be a site of this account');
      expect(await keys().countBy({ accountId: a.accountId })).toBe(before);
    });

    it.each([
      ['no name', {}, [{ path: 'name', message: 'is required' }]],
      ['an empty name', { name: '' }, [{ path: 'name', message: 'must be longer than or equal to 1 characters' }]],
      ['an unknown field', { name: 'k', scopes: ['all'] }, [{ path: 'scopes', message: 'is not allowed' }]],
      ['siteIds not an array', { name: 'k', siteIds: 3 }, [{ path: 'siteIds', message: 'must be an array' }]],
      [
        'a bad expiresAt',
        { name: 'k', expiresAt: 'tomorrow' },
        [{ path: 'expiresAt', message: 'must be an RFC 3339 date-time, e.g. 2024-01-01T00:00:00Z' }],
      ],
    ])('a bad body (%s) is a 400 naming the field', async (_label, body, errors) => {
      const before = await keys().countBy({ accountId: a.accountId });
      const res = await a.api.post('/api/v2/api-keys').send(body);
      expectExactProblem(res, 400, 'validation_failed', 'Validation failed', '1 field is invalid', errors);
      expect(await keys().countBy({ accountId: a.accountId })).toBe(before);
    });

    it('an expiresAt in the past is a 400', async () => {
      const before = await keys().countBy({ accountId: a.accountId });
      const res = await a.api
        .post('/api/v2/api-keys')
        .send({ name: 'k', expiresAt: new Date(Date.now() - 60_000).toISOString() });
      expectExactProblem(res, 400, 'validation_failed', 'Validation failed', '1 field is invalid', [
        { path: 'expiresAt', message: 'must be in the future' },
      ]);
      expect(await keys().countBy({ accountId: a.accountId })).toBe(before);
    });
  });

  describe('DELETE /api/v2/api-keys/:id', () => {
    it('revokes a key: 204, the key stops working, revoked_at set, api_key.revoked recorded', async () => {
      const created = await a.api.post('/api/v2/api-keys').send({ name: 'short-lived' });
      const res = await a.api.delete(`/api/v2/api-keys/${created.body.id}`);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      const after = await request(t.server).get('/api/v2/api-keys').set('x-api-key', created.body.key);
      expectExactProblem(after, 401, 'invalid_api_key', 'Unauthorized', 'The API key is invalid or revoked');
      const row = await keys().findOneByOrFail({ id: created.body.id });
      expect(row.revokedAt).toBeInstanceOf(Date);
      expect(await events(a.accountId, 'api_key.revoked')).toEqual(
        expect.arrayContaining([expect.objectContaining({ siteId: null, payload: { id: created.body.id } })]),
      );
    });

    it('a key of another account is a 404 and stays active', async () => {
      const res = await a.api.delete(`/api/v2/api-keys/${b.keyId}`);
      expectExactProblem(res, 404, 'not_found', 'Not found', 'API key not found');
      expect((await keys().findOneByOrFail({ id: b.keyId })).revokedAt).toBeNull();
    });

    it('the last unrestricted key cannot be revoked (409 last_key), even with restricted keys left', async () => {
      const x = await createTenant(t);
      const restricted = await x.api.post('/api/v2/api-keys').send({ name: 'one site', siteIds: [x.siteId] });
      expect(restricted.status).toBe(201);
      const before = await keys().findOneByOrFail({ id: x.keyId });
      const res = await x.api.delete(`/api/v2/api-keys/${x.keyId}`);
      expectExactProblem(
        res,
        409,
        'last_key',
        'Conflict',
        "This is the account's last unrestricted key; create another before revoking it",
      );
      // Unchanged but for last_used_at, which the calls themselves update.
      const after = await keys().findOneByOrFail({ id: x.keyId });
      expect({ ...after, lastUsedAt: null }).toEqual({ ...before, lastUsedAt: null });
      expect(after.revokedAt).toBeNull();
      expect(await events(x.accountId, 'api_key.revoked')).toEqual([]);

      // With a second unrestricted key, the first can go.
      const spare = await x.api.post('/api/v2/api-keys').send({ name: 'spare' });
      expect(
        (await request(t.server).delete(`/api/v2/api-keys/${x.keyId}`).set('x-api-key', spare.body.key)).status,
      ).toBe(204);
    });

    it('a non-numeric id is a 400', async () => {
      const res = await a.api.delete('/api/v2/api-keys/abc');
      expectExactProblem(res, 400, 'validation_failed', 'Validation failed', '1 field is invalid', [
        { path: 'id', message: 'must be a positive integer' },
      ]);
    });
  });

  describe('Idempotency-Key on POST /api/v2/api-keys', () => {
    it('the same key and body replay the first response and create one key', async () => {
      const x = await createTenant(t);
      const idem = uniqueName('idem');
      const first = await x.api
        .post('/api/v2/api-keys')
        .set('Idempotency-Key', idem)
        .send({ name: 'once', siteIds: [x.siteId] });
      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      // Same body with its keys in another order.
      const second = await x.api
        .post('/api/v2/api-keys')
        .set('Idempotency-Key', idem)
        .send({ siteIds: [x.siteId], name: 'once' });
      expect(second.status).toBe(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.headers.location).toBe(first.headers.location);
      expect(second.body).toEqual(first.body);
      expect(await keys().countBy({ accountId: x.accountId, name: 'once' })).toBe(1);
      // API.md §2: only a hash of a key is stored, the replayable response included; and not the
      // Idempotency-Key either, or whoever reads the table could replay the response.
      expect(await tablesContaining(first.body.key)).toEqual([]);
      expect(await tablesContaining(idem)).toEqual([]);
    });

    it('the same key with another body is a 409 idempotency_key_reused', async () => {
      const x = await createTenant(t);
      const idem = uniqueName('idem');
      expect((await x.api.post('/api/v2/api-keys').set('Idempotency-Key', idem).send({ name: 'one' })).status).toBe(
        201,
      );
      const res = await x.api.post('/api/v2/api-keys').set('Idempotency-Key', idem).send({ name: 'two' });
      expectExactProblem(
        res,
        409,
        'idempotency_key_reused',
        'Conflict',
        'This Idempotency-Key was used with another request',
      );
      expect(await keys().countBy({ accountId: x.accountId, name: 'two' })).toBe(0);
    });

    it('the same Idempotency-Key of two accounts does not collide', async () => {
      const [x, y] = await Promise.all([createTenant(t), createTenant(t)]);
      const idem = uniqueName('idem');
      const rx = await x.api.post('/api/v2/api-keys').set('Idempotency-Key', idem).send({ name: 'shared' });
      const ry = await y.api.post('/api/v2/api-keys').set('Idempotency-Key', idem).send({ name: 'shared' });
      expect([rx.status, ry.status]).toEqual([201, 201]);
      expect(ry.headers['idempotent-replayed']).toBeUndefined();
      expect(ry.body.id).not.toBe(rx.body.id);
      expect(await keys().countBy({ accountId: y.accountId, name: 'shared' })).toBe(1);
    });

    it('a request still in progress with the same key is a 409 idempotency_request_in_progress once the wait (5 s) is over', async () => {
      const x = await createTenant(t);
      const idem = uniqueName('idem');
      const first = await x.api.post('/api/v2/api-keys').set('Idempotency-Key', idem).send({ name: 'slow' });
      expect(first.status).toBe(201);
      // As if the first request had not finished yet.
      await t.db.query(
        "UPDATE idempotency_keys SET state = 'processing', response_body = NULL WHERE scope = $1 AND key = $2",
        [
          `account:${x.accountId}:site:-:key:${x.keyId}`,
          idempotencyKeyHash(`account:${x.accountId}:site:-:key:${x.keyId}`, idem),
        ],
      );
      const res = await x.api.post('/api/v2/api-keys').set('Idempotency-Key', idem).send({ name: 'slow' });
      expectExactProblem(
        res,
        409,
        'idempotency_request_in_progress',
        'Conflict',
        'A request with this Idempotency-Key is still being processed',
      );
      expect(await keys().countBy({ accountId: x.accountId, name: 'slow' })).toBe(1);
    });

    it('a key older than IDEMPOTENCY_TTL_SECONDS is free again', async () => {
      const x = await createTenant(t);
      const idem = uniqueName('idem');
      expect((await x.api.post('/api/v2/api-keys').set('Idempotency-Key', idem).send({ name: 'old' })).status).toBe(
        201,
      );
      await t.db.query("UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE scope = $1", [
        `account:${x.accountId}:site:-:key:${x.keyId}`,
      ]);
      const res = await x.api.post('/api/v2/api-keys').set('Idempotency-Key', idem).send({ name: 'new' });
      expect(res.status).toBe(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(await keys().countBy({ accountId: x.accountId, name: 'new' })).toBe(1);
    });

    it('a 256-character key is a 400', async () => {
      const before = await keys().countBy({ accountId: a.accountId });
      const res = await a.api
        .post('/api/v2/api-keys')
        .set('Idempotency-Key', 'k'.repeat(256))
        .send({ name: 'too long' });
      expectExactProblem(
        res,
        400,
        'invalid_idempotency_key',
        'Bad request',
        'Idempotency-Key must be 1 to 255 characters',
        [{ path: 'Idempotency-Key', message: 'must be 1 to 255 characters' }],
      );
      expect(await keys().countBy({ accountId: a.accountId })).toBe(before);
      const ok = await a.api
        .post('/api/v2/api-keys')
        .set('Idempotency-Key', 'k'.repeat(255))
        .send({ name: 'max length' });
      expect(ok.status).toBe(201);
    });

    it('a failed request does not keep the key: a retry with a fixed body succeeds', async () => {
      const x = await createTenant(t);
      const idem = uniqueName('idem');
      const bad = await x.api.post('/api/v2/api-keys').set('Idempotency-Key', idem).send({ name: '' });
      expect(bad.status).toBe(400);
      const forbidden = await x.api
        .post('/api/v2/api-keys')
        .set('Idempotency-Key', idem)
        .send({ name: 'fixed', siteIds: [b.siteId] });
      expect(forbidden.status).toBe(403);
      const fixed = await x.api.post('/api/v2/api-keys').set('Idempotency-Key', idem).send({ name: 'fixed' });
      expect(fixed.status).toBe(201);
      expect(fixed.headers['idempotent-replayed']).toBeUndefined();
      expect(fixed.body.name).toBe('fixed');
      expect(await keys().countBy({ accountId: x.accountId, name: 'fixed' })).toBe(1);
    });
  });
});
