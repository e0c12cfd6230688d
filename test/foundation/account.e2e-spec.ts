import request from 'supertest';
import { AccountDeletionEntity } from '../../src/account/entities/account-deletion.entity';
import { AccountEntity } from '../../src/common/tenancy/entities/account.entity';
import { SiteEntity } from '../../src/common/tenancy/entities/site.entity';
import { OutboxEventEntity } from '../../src/common/outbox/outbox-event.entity';
import { startApp, TestApp } from '../support/app';
import { createTenant, Tenant, uniqueName } from '../support/tenant';
import { ISO } from '../support/matchers';
import { expectExactProblem } from '../support/problem';

const WEEK = 7 * 24 * 3600;

describe('/api/v2/account (deletion)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  const accountStatus = async (x: Tenant) =>
    (await t.db.getRepository(AccountEntity).findOneByOrFail({ id: x.accountId })).status;
  const deletions = (x: Tenant) =>
    t.db.getRepository(AccountDeletionEntity).find({ where: { accountId: x.accountId }, order: { id: 'ASC' } });
  const events = (x: Tenant, name: string) =>
    t.db.getRepository(OutboxEventEntity).findBy({ accountId: x.accountId, name });
  const scheduledBody = (id: number) => ({
    id,
    status: 'scheduled',
    requestedAt: ISO,
    purgeAfter: ISO,
    canceledAt: null,
    completedAt: null,
  });

  async function schedule(x: Tenant) {
    const res = await x.api.delete('/api/v2/account');
    expect(res.status).toBe(202);
    return res;
  }

  describe('GET /api/v2/account/deletion-preview', () => {
    it('counts what a fresh tenant would lose', async () => {
      const x = await createTenant(t);
      const res = await x.api.get('/api/v2/account/deletion-preview');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['gracePeriodSeconds', 'resources']);
      expect(res.body.gracePeriodSeconds).toBe(WEEK);
      // The registry also lists every module added later; a fresh tenant has none of their rows.
      const known = ['api_keys', 'sites', 'events'];
      expect(res.body.resources.filter((r: { resource: string }) => known.includes(r.resource))).toEqual([
        { resource: 'api_keys', count: 1, action: 'delete' },
        { resource: 'sites', count: 1, action: 'delete' },
        // site.created and api_key.created
        { resource: 'events', count: 2, action: 'delete' },
      ]);
      for (const r of res.body.resources.filter((r: { resource: string }) => !known.includes(r.resource))) {
        expect(r).toEqual({
          resource: r.resource,
          count: 0,
          action: expect.stringMatching(/^(delete|anonymise|cancel|forfeit)$/),
        });
      }
      expect(await deletions(x)).toEqual([]);
    });

    it("follows the account's data", async () => {
      const x = await createTenant(t);
      expect((await x.api.post('/api/v2/sites').send({ name: uniqueName() })).status).toBe(201);
      expect((await x.api.post('/api/v2/api-keys').send({ name: 'more' })).status).toBe(201);
      const res = await x.api.get('/api/v2/account/deletion-preview');
      expect(res.status).toBe(200);
      const counts = Object.fromEntries(
        res.body.resources.map((r: { resource: string; count: number }) => [r.resource, r.count]),
      );
      expect({ api_keys: counts.api_keys, sites: counts.sites, events: counts.events }).toEqual({
        api_keys: 2,
        sites: 2,
        events: 4,
      });
    });
  });

  describe('DELETE /api/v2/account', () => {
    it('schedules the deletion: 202, purgeAfter a week ahead, account marked, event and purge job recorded', async () => {
      const x = await createTenant(t);
      const before = Date.now();
      const res = await x.api.delete('/api/v2/account');
      expect(res.status).toBe(202);
      expect(res.body).toEqual(scheduledBody(res.body.id));
      expect(res.body.id).toEqual(expect.any(Number));
      const purgeAfter = Date.parse(res.body.purgeAfter);
      expect(purgeAfter).toBeGreaterThanOrEqual(before + WEEK * 1000);
      expect(purgeAfter).toBeLessThanOrEqual(Date.now() + WEEK * 1000);

      expect(await deletions(x)).toEqual([
        {
          id: res.body.id,
          accountId: x.accountId,
          status: 'scheduled',
          requestedAt: new Date(res.body.requestedAt),
          purgeAfter: new Date(res.body.purgeAfter),
          canceledAt: null,
          completedAt: null,
          requestedByKeyId: x.keyId,
          summary: null,
        },
      ]);
      expect(await accountStatus(x)).toBe('deletion_scheduled');
      expect(await events(x, 'account.deletion_scheduled')).toEqual([
        expect.objectContaining({ siteId: null, payload: { id: res.body.id, purgeAfter: res.body.purgeAfter } }),
      ]);
      const jobs: Array<{ start_after: Date; state: string }> = await t.db.query(
        "SELECT start_after, state FROM pgboss.job WHERE name = 'account.purge' AND data->>'deletionId' = $1",
        [String(res.body.id)],
      );
      expect(jobs).toEqual([{ start_after: new Date(res.body.purgeAfter), state: 'created' }]);
    });

    it('asking again returns the same scheduled deletion', async () => {
      const x = await createTenant(t);
      const first = await schedule(x);
      const second = await x.api.delete('/api/v2/account');
      expect(second.status).toBe(202);
      expect(second.body).toEqual(first.body);
      expect(await deletions(x)).toHaveLength(1);
      expect(await events(x, 'account.deletion_scheduled')).toHaveLength(1);
    });

    it('while scheduled, the account can read but not write (403 account_pending_deletion)', async () => {
      const x = await createTenant(t);
      const extra = await x.api.post('/api/v2/api-keys').send({ name: 'spare' });
      await schedule(x);
      const detail = 'The account is scheduled for deletion: it can only read and cancel';

      const name = uniqueName();
      expectExactProblem(
        await x.api.post('/api/v2/sites').send({ name }),
        403,
        'account_pending_deletion',
        'Forbidden',
        detail,
      );
      expectExactProblem(
        await x.api.post('/api/v2/api-keys').send({ name: 'k' }),
        403,
        'account_pending_deletion',
        'Forbidden',
        detail,
      );
      expectExactProblem(
        await x.api.delete(`/api/v2/api-keys/${extra.body.id}`),
        403,
        'account_pending_deletion',
        'Forbidden',
        detail,
      );
      expect(await t.db.getRepository(SiteEntity).countBy({ name })).toBe(0);
      expect((await x.api.get(`/api/v2/api-keys/${extra.body.id}`)).status).toBe(200);

      const sites = await x.api.get('/api/v2/sites');
      expect(sites.status).toBe(200);
      expect(sites.body.data.map((s: { id: number }) => s.id)).toEqual([x.siteId]);
      expect((await x.api.get(`/api/v2/sites/${x.siteName}`)).status).toBe(200);
      expect((await x.api.get('/api/v2/api-keys')).status).toBe(200);
      expect((await x.api.get('/api/v2/account/deletion-preview')).status).toBe(200);
    });

    it('another account is not affected', async () => {
      const [x, y] = await Promise.all([createTenant(t), createTenant(t)]);
      await schedule(x);
      expect((await y.api.post('/api/v2/sites').send({ name: uniqueName() })).status).toBe(201);
      expect(await accountStatus(y)).toBe('active');
      const res = await y.api.get('/api/v2/account/deletion');
      expectExactProblem(res, 404, 'deletion_not_found', 'Not found', 'Deletion request not found');
    });
  });

  describe('GET /api/v2/account/deletion', () => {
    it('returns the latest deletion request', async () => {
      const x = await createTenant(t);
      const scheduled = await schedule(x);
      const res = await x.api.get('/api/v2/account/deletion');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(scheduled.body);
    });

    it('is a 404 deletion_not_found when the account never asked', async () => {
      const x = await createTenant(t);
      const res = await x.api.get('/api/v2/account/deletion');
      expectExactProblem(res, 404, 'deletion_not_found', 'Not found', 'Deletion request not found');
    });
  });

  describe('DELETE /api/v2/account/deletion (cancel)', () => {
    it('cancels: 200 canceled, the account is active and can write again', async () => {
      const x = await createTenant(t);
      const scheduled = await schedule(x);
      const res = await x.api.delete('/api/v2/account/deletion');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...scheduled.body, status: 'canceled', canceledAt: ISO });

      const [row] = await deletions(x);
      expect(row).toEqual(
        expect.objectContaining({
          id: scheduled.body.id,
          status: 'canceled',
          canceledAt: new Date(res.body.canceledAt),
          completedAt: null,
        }),
      );
      expect(await accountStatus(x)).toBe('active');
      expect(await events(x, 'account.deletion_canceled')).toEqual([
        expect.objectContaining({ siteId: null, payload: { id: scheduled.body.id } }),
      ]);
      expect((await x.api.post('/api/v2/sites').send({ name: uniqueName() })).status).toBe(201);
      const latest = await x.api.get('/api/v2/account/deletion');
      expect(latest.body).toEqual(res.body);
    });

    it('a new deletion after a cancel is a new request', async () => {
      const x = await createTenant(t);
      const first = await schedule(x);
      expect((await x.api.delete('/api/v2/account/deletion')).status).toBe(200);
      const second = await schedule(x);
      expect(second.body).toEqual(scheduledBody(second.body.id));
      expect(second.body.id).not.toBe(first.body.id);
      expect((await deletions(x)).map((d) => d.status)).toEqual(['canceled', 'scheduled']);
    });

    it('once the purge has started it is a 409 deletion_in_progress, and nothing changes', async () => {
      const x = await createTenant(t);
      const scheduled = await schedule(x);
      await t.db.query("UPDATE account_deletions SET status = 'purging' WHERE id = $1", [scheduled.body.id]);
      const before = await deletions(x);
      const res = await x.api.delete('/api/v2/account/deletion');
      expectExactProblem(
        res,
        409,
        'deletion_in_progress',
        'Conflict',
        'The purge has started and can no longer be canceled',
      );
      expect(await deletions(x)).toEqual(before);
      expect(await accountStatus(x)).toBe('deletion_scheduled');
      expect(await events(x, 'account.deletion_canceled')).toEqual([]);
    });

    it('with nothing scheduled is a 404', async () => {
      const x = await createTenant(t);
      const res = await x.api.delete('/api/v2/account/deletion');
      expectExactProblem(res, 404, 'deletion_not_found', 'Not found', 'Scheduled deletion not found');
      expect(await accountStatus(x)).toBe('active');

      await schedule(x);
      expect((await x.api.delete('/api/v2/account/deletion')).status).toBe(200);
      const again = await x.api.delete('/api/v2/account/deletion');
      expectExactProblem(again, 404, 'deletion_not_found', 'Not found', 'Scheduled deletion not found');
    });
  });

  it('a key restricted to some sites may not touch the account (403 key_restricted)', async () => {
    const x = await createTenant(t);
    const key = (await x.api.post('/api/v2/api-keys').send({ name: 'one site', siteIds: [x.siteId] })).body
      .key as string;
    const detail = 'This key is restricted to some sites and cannot manage the account';
    for (const [method, url] of [
      ['delete', '/api/v2/account'],
      ['get', '/api/v2/account/deletion'],
      ['delete', '/api/v2/account/deletion'],
      ['get', '/api/v2/account/deletion-preview'],
    ] as const) {
      const res = await request(t.server)[method](url).set('x-api-key', key);
      expectExactProblem(res, 403, 'key_restricted', 'Forbidden', detail);
    }
    expect(await deletions(x)).toEqual([]);
    expect(await accountStatus(x)).toBe('active');
  });
});
