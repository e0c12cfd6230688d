import request from 'supertest';
import { ApiKeyEntity } from '../../src/api-keys/entities/api-key.entity';
import { PERMISSION_GROUPS, PERMISSIONS, PUBLISHABLE_PERMISSIONS } from '../../src/common/auth/permissions';
import { snapshotDatabase } from '../support/db-snapshot';
import { expectExactProblem } from '../support/problem';
import { agent, createTenant, Tenant, withTenants } from '../support/tenant';

/** Permissions on keys (docs/foundation.md, "Permissions"): creating, enforcing, no escalation. */
describe('API key permissions', () => {
  const ctx = withTenants(2);
  let a: Tenant;
  let b: Tenant;
  beforeAll(() => ([a, b] = ctx.tenants));

  const keys = () => ctx.t.db.getRepository(ApiKeyEntity);
  const make = async (by: Tenant | string, body: Record<string, unknown>) => {
    const api = typeof by === 'string' ? agent(ctx.t, by) : by.api;
    return api.post('/api/v2/api-keys').send({ name: 'scoped', ...body });
  };

  it('creates a key with permissions: stored sorted without repeats, shown in its answer and its GET', async () => {
    const res = await make(a, { permissions: ['media:read', 'content:write', 'media:read'] });
    expect(res.status).toBe(201);
    expect(res.body.permissions).toEqual(['content:write', 'media:read']);
    const [row] = await ctx.t.db.query('SELECT permissions FROM api_keys WHERE id = $1', [res.body.id]);
    expect(row).toEqual({ permissions: ['content:write', 'media:read'] });
    const get = await a.api.get(`/api/v2/api-keys/${res.body.id}`);
    expect(get.status).toBe(200);
    expect(get.body.permissions).toEqual(['content:write', 'media:read']);
    // `*` stands alone for every permission.
    const all = await make(a, { permissions: ['content:read', '*'] });
    expect(all.status).toBe(201);
    expect(all.body.permissions).toEqual(['*']);
  });

  it('a key without permissions has them all (null), as every key made before them', async () => {
    const res = await make(a, {});
    expect(res.status).toBe(201);
    expect(res.body.permissions).toBeNull();
    expect((await keys().findOneByOrFail({ id: res.body.id })).permissions).toBeNull();
    const del = await agent(ctx.t, res.body.key).delete(`/api/v2/api-keys/${res.body.id}`);
    expect(del.status).toBe(204);
  });

  it.each([
    ['an unknown permission', ['content:admin'], 'each value must be one of the following values: '],
    ['an unknown group', ['secrets:read'], 'each value must be one of the following values: '],
    ['an empty list', [], 'must name at least one permission (omit it for all)'],
  ])('%s is a 400 naming the field, and nothing is created', async (_label, permissions, message) => {
    const before = await keys().countBy({ accountId: a.accountId });
    const res = await make(a, { permissions });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors).toEqual([{ path: 'permissions', message: expect.stringContaining(message) }]);
    expect(await keys().countBy({ accountId: a.accountId })).toBe(before);
  });

  it('the catalogue is every group with read and write, and `*`', () => {
    expect(PERMISSIONS).toHaveLength(1 + 2 * PERMISSION_GROUPS.length);
    expect(PERMISSIONS).toEqual(expect.arrayContaining(['*', 'content:read', 'api-keys:write', 'account:read']));
  });

  describe('enforcement', () => {
    let reader: string;
    let writer: string;
    beforeAll(async () => {
      [reader, writer] = await Promise.all([
        make(a, { permissions: ['content:read'] }).then((r) => r.body.key as string),
        make(a, { permissions: ['content:write'] }).then((r) => r.body.key as string),
      ]);
    });

    it('content:read lists content and gets 403 insufficient_permission on a write, with nothing changed', async () => {
      const list = await agent(ctx.t, reader).get(`/api/v2/sites/${a.siteName}/content`);
      expect(list.status).toBe(200);
      const before = await snapshotDatabase(ctx.t.db);
      const res = await agent(ctx.t, reader)
        .post(`/api/v2/sites/${a.siteName}/content`)
        .send({ title: 'Nope', slug: 'nope' });
      expectExactProblem(
        res,
        403,
        'insufficient_permission',
        'Forbidden',
        'This key lacks the `content:write` permission this route needs',
      );
      expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
    });

    it('write includes read of its group, and nothing of another group', async () => {
      expect((await agent(ctx.t, writer).get(`/api/v2/sites/${a.siteName}/content`)).status).toBe(200);
      const media = await agent(ctx.t, writer).get(`/api/v2/sites/${a.siteName}/media`);
      expectExactProblem(
        media,
        403,
        'insufficient_permission',
        'Forbidden',
        'This key lacks the `media:read` permission this route needs',
      );
    });

    it("another account's site is the same 404 as before, whatever the key may do", async () => {
      const before = await snapshotDatabase(ctx.t.db);
      const res = await agent(ctx.t, writer)
        .post(`/api/v2/sites/${b.siteName}/content`)
        .send({ title: 'Elsewhere', slug: 'elsewhere' });
      expectExactProblem(res, 404, 'site_not_found', 'Not found', 'Site not found');
      expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
    });

    it('on a public route a key without the permission reads as no key: published only, no drafts', async () => {
      const draft = await a.api
        .post(`/api/v2/sites/${a.siteName}/content`)
        .send({ title: 'Draft only', slug: 'draft-only' });
      expect(draft.status).toBe(201);
      const media = await make(a, { permissions: ['media:read'] });
      const asKey = await agent(ctx.t, media.body.key).get(`/api/v2/sites/${a.siteName}/content/${draft.body.id}`);
      const anonymous = await request(ctx.t.server).get(`/api/v2/sites/${a.siteName}/content/${draft.body.id}`);
      expect(asKey.status).toBe(anonymous.status);
      expect(asKey.body.code).toBe(anonymous.body.code);
      expect((await agent(ctx.t, reader).get(`/api/v2/sites/${a.siteName}/content/${draft.body.id}`)).status).toBe(200);
    });
  });

  describe('no escalation', () => {
    it('a key cannot create a key with a permission it lacks, nor one with every permission', async () => {
      const limited = await make(a, { permissions: ['api-keys:write', 'content:read'] });
      expect(limited.status).toBe(201);
      const before = await snapshotDatabase(ctx.t.db);
      const wider = await make(limited.body.key, { permissions: ['content:write', 'media:read'] });
      expectExactProblem(
        wider,
        403,
        'insufficient_permission',
        'Forbidden',
        'A key cannot give more than it has: this key lacks `content:write`, `media:read`',
      );
      const unlimited = await make(limited.body.key, {});
      expectExactProblem(
        unlimited,
        403,
        'insufficient_permission',
        'Forbidden',
        'A key cannot give more than it has: this key lacks `*`',
      );
      const star = await make(limited.body.key, { permissions: ['*'] });
      expect(star.status).toBe(403);
      expect(await snapshotDatabase(ctx.t.db)).toEqual(before);

      // As much or less is allowed: a read it holds through write, a permission it has.
      const narrower = await make(limited.body.key, { permissions: ['api-keys:read', 'content:read'] });
      expect(narrower.status).toBe(201);
      expect(narrower.body.permissions).toEqual(['api-keys:read', 'content:read']);
    });

    it('a key without api-keys:write cannot create keys at all', async () => {
      const reader = await make(a, { permissions: ['api-keys:read'] });
      const res = await make(reader.body.key, { permissions: ['api-keys:read'] });
      expectExactProblem(
        res,
        403,
        'insufficient_permission',
        'Forbidden',
        'This key lacks the `api-keys:write` permission this route needs',
      );
    });

    it('a key cannot revoke a key that may do more than itself: 403 naming what it lacks, nothing changed', async () => {
      const x = await createTenant(ctx.t);
      const limited = await x.api.post('/api/v2/api-keys').send({ name: 'limited', permissions: ['api-keys:write'] });
      const stronger = await x.api
        .post('/api/v2/api-keys')
        .send({ name: 'stronger', permissions: ['api-keys:write', 'content:write'] });
      const weaker = await x.api.post('/api/v2/api-keys').send({ name: 'weaker', permissions: ['api-keys:read'] });
      const before = await snapshotDatabase(ctx.t.db);
      for (const target of [x.keyId, stronger.body.id as number]) {
        const res = await agent(ctx.t, limited.body.key).delete(`/api/v2/api-keys/${target}`);
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('insufficient_permission');
        expect(res.body.detail).toMatch(/^A key cannot revoke a key that may do more than itself: this key lacks `/);
      }
      expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
      // As much or less is its to revoke.
      expect((await agent(ctx.t, limited.body.key).delete(`/api/v2/api-keys/${weaker.body.id}`)).status).toBe(204);
      expect((await keys().findOneByOrFail({ id: weaker.body.id })).revokedAt).not.toBeNull();
    });

    describe('a key never outlives the key that makes it', () => {
      const HOUR = 3_600_000;
      const at = (ms: number) => new Date(ms).toISOString();
      let x: Tenant;
      let expiring: { id: number; key: string; expiresAt: string };
      beforeAll(async () => {
        x = await createTenant(ctx.t);
        const expiresAt = at(Date.now() + 2 * HOUR);
        const res = await x.api
          .post('/api/v2/api-keys')
          .send({ name: 'expiring', expiresAt, permissions: ['api-keys:write', ...PUBLISHABLE_PERMISSIONS] });
        expect(res.status).toBe(201);
        expiring = { id: res.body.id, key: res.body.key, expiresAt };
      });
      const fieldProblem = (res: request.Response, message: string) =>
        expectExactProblem(res, 400, 'validation_failed', 'Validation failed', '1 field is invalid', [
          { path: 'expiresAt', message },
        ]);

      it('an expiring key must give the new key an expiresAt no later than its own (400 otherwise, nothing made)', async () => {
        const by = agent(ctx.t, expiring.key);
        const create = (body: Record<string, unknown>) => by.post('/api/v2/api-keys').send({ name: 'child', ...body });
        const required = `is required: this key expires at ${expiring.expiresAt}, and a key cannot make one that outlives it`;
        const later = `must be no later than ${expiring.expiresAt}, when this key expires: a key cannot make one that outlives it`;
        const before = await snapshotDatabase(ctx.t.db);
        fieldProblem(await create({ permissions: ['content:read'] }), required);
        fieldProblem(await create({ permissions: ['content:read'], expiresAt: null }), required);
        fieldProblem(await create({ kind: 'publishable' }), required);
        const oneMsLater = at(Date.parse(expiring.expiresAt) + 1);
        fieldProblem(await create({ permissions: ['content:read'], expiresAt: oneMsLater }), later);
        fieldProblem(
          await create({ kind: 'publishable', expiresAt: at(Date.parse(expiring.expiresAt) + HOUR) }),
          later,
        );
        expect(await snapshotDatabase(ctx.t.db)).toEqual(before);

        // As long as its own, or shorter, is made.
        const same = await create({ permissions: ['content:read'], expiresAt: expiring.expiresAt });
        expect([same.status, same.body.expiresAt]).toEqual([201, expiring.expiresAt]);
        const sooner = at(Date.now() + HOUR);
        const shorter = await create({ kind: 'publishable', expiresAt: sooner });
        expect([shorter.status, shorter.body.expiresAt]).toEqual([201, sooner]);
        const [row] = await ctx.t.db.query('SELECT expires_at FROM api_keys WHERE id = $1', [shorter.body.id]);
        expect(row).toEqual({ expires_at: new Date(sooner) });
        // A key that never expires makes keys that never expire, as before.
        expect((await x.api.post('/api/v2/api-keys').send({ name: 'open' })).status).toBe(201);
      });

      it('an expiring key cannot roll a key that outlives it (403 longer_lived_key, nothing changes); itself it may', async () => {
        const by = agent(ctx.t, expiring.key);
        const make = async (body: Record<string, unknown>) =>
          (await x.api.post('/api/v2/api-keys').send({ name: 'target', permissions: ['content:read'], ...body })).body
            .id as number;
        const never = await make({});
        const laterAt = at(Date.parse(expiring.expiresAt) + HOUR);
        const later = await make({ expiresAt: laterAt });
        const soonerAt = at(Date.parse(expiring.expiresAt) - HOUR);
        const sooner = await make({ expiresAt: soonerAt });
        const before = await snapshotDatabase(ctx.t.db);
        const lead = `A key cannot roll a key that outlives it: this key expires at ${expiring.expiresAt}, that one`;
        expectExactProblem(
          await by.post(`/api/v2/api-keys/${never}/roll`).send({ gracePeriodSeconds: 0 }),
          403,
          'longer_lived_key',
          'Forbidden',
          `${lead} never does`,
        );
        expectExactProblem(
          await by.post(`/api/v2/api-keys/${later}/roll`),
          403,
          'longer_lived_key',
          'Forbidden',
          `${lead} at ${laterAt}`,
        );
        expect(await snapshotDatabase(ctx.t.db)).toEqual(before);

        const shorter = await by.post(`/api/v2/api-keys/${sooner}/roll`);
        expect([shorter.status, shorter.body.expiresAt]).toEqual([200, soonerAt]);
        // Rolling itself keeps its expiry.
        const itself = await by.post(`/api/v2/api-keys/${expiring.id}/roll`).send({ gracePeriodSeconds: 0 });
        expect([itself.status, itself.body.expiresAt]).toEqual([200, expiring.expiresAt]);
      });
    });

    it("a limited key is not the account's last unrestricted key: the full one still cannot go", async () => {
      const x = await createTenant(ctx.t);
      const limited = await x.api.post('/api/v2/api-keys').send({ name: 'limited', permissions: ['api-keys:write'] });
      expect(limited.status).toBe(201);
      const res = await x.api.delete(`/api/v2/api-keys/${x.keyId}`);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('last_key');
      expect((await keys().findOneByOrFail({ id: x.keyId })).revokedAt).toBeNull();
    });
  });
});
