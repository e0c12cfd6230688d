import { ApiKeyEntity } from '../../src/api-keys/entities/api-key.entity';
import { SiteEntity } from '../../src/common/tenancy/entities/site.entity';
import { withClient } from '../support/api-client';
import { ISO } from '../support/matchers';
import { createTenant, uniqueName } from '../support/tenant';

/** Health, API keys, the account and the admin site routes, called through the generated client. */
describe('generated client: foundation routes', () => {
  const s = withClient(1);

  it('health: liveness and readiness, anonymous', async () => {
    const anonymous = s.contract.as();
    const live = await anonymous.GET('/health');
    expect([live.response.status, live.data]).toEqual([200, { status: 'ok' }]);
    const ready = await anonymous.GET('/health/ready');
    expect([ready.response.status, ready.data]).toEqual([200, { status: 'ok', database: 'up' }]);
  });

  it('API keys: create, list, get, roll, delete', async () => {
    const created = await s.api.POST('/api/v2/api-keys', { body: { name: 'client key', siteIds: [s.a.siteId] } });
    expect(created.response.status).toBe(201);
    const key = created.data!;
    expect(key).toEqual(expect.objectContaining({ name: 'client key', siteIds: [s.a.siteId], createdAt: ISO }));
    expect(key.key).toMatch(/^sb_live_/);
    expect(await s.t.db.getRepository(ApiKeyEntity).findOneBy({ id: key.id })).toEqual(
      expect.objectContaining({ accountId: s.a.accountId, name: 'client key' }),
    );

    const list = await s.api.GET('/api/v2/api-keys', { params: { query: { limit: 100 } } });
    expect(list.response.status).toBe(200);
    expect(list.data!.data.map((k) => k.id)).toEqual(expect.arrayContaining([s.a.keyId, key.id]));

    const one = await s.api.GET('/api/v2/api-keys/{id}', { params: { path: { id: key.id } } });
    expect([one.response.status, one.data?.name]).toEqual([200, 'client key']);

    const rolled = await s.api.POST('/api/v2/api-keys/{id}/roll', {
      params: { path: { id: key.id } },
      body: { gracePeriodSeconds: 60 },
    });
    expect(rolled.response.status).toBe(200);
    expect(rolled.data).toEqual(
      expect.objectContaining({
        id: key.id,
        key: expect.stringMatching(/^sb_live_/),
        previousSecret: expect.objectContaining({ prefix: key.prefix, last4: key.last4, expiresAt: ISO }),
      }),
    );
    expect(rolled.data!.key).not.toBe(key.key);

    const removed = await s.api.DELETE('/api/v2/api-keys/{id}', { params: { path: { id: key.id } } });
    expect(removed.response.status).toBe(204);
    expect(await s.t.db.getRepository(ApiKeyEntity).findOneBy({ id: key.id })).toEqual(
      expect.objectContaining({ revokedAt: expect.any(Date) }),
    );
    const gone = await s.api.GET('/api/v2/api-keys/{id}', { params: { path: { id: 999999999 } } });
    expect([gone.response.status, gone.error?.code]).toEqual([404, 'not_found']);
  });

  it('admin sites: create, list, get, update settings', async () => {
    const name = uniqueName('client');
    const created = await s.api.POST('/api/v2/sites', { body: { name, title: 'From the client' } });
    expect(created.response.status).toBe(201);
    expect(created.data).toEqual(expect.objectContaining({ name, title: 'From the client', accountId: s.a.accountId }));
    expect(await s.t.db.getRepository(SiteEntity).findOneBy({ name })).toEqual(
      expect.objectContaining({ accountId: s.a.accountId, title: 'From the client' }),
    );
    const list = await s.api.GET('/api/v2/sites', { params: { query: { limit: 100 } } });
    expect(list.data!.data.map((s) => s.name)).toEqual(expect.arrayContaining([s.a.siteName, name]));
    const one = await s.api.GET('/api/v2/sites/{siteName}', { params: { path: { siteName: name } } });
    expect([one.response.status, one.data?.title]).toEqual([200, 'From the client']);
    const updated = await s.api.PATCH('/api/v2/sites/{siteName}', {
      params: { path: { siteName: name } },
      body: { settings: { email: { fromName: 'Client', fromAddress: 'client@example.com' } } },
    });
    expect([updated.response.status, updated.data?.settings.email]).toEqual([
      200,
      {
        fromName: 'Client',
        fromAddress: 'client@example.com',
        replyTo: null,
        softBounceLimit: null,
        softBounceWindowDays: null,
      },
    ]);
    expect((await s.t.db.getRepository(SiteEntity).findOneByOrFail({ name })).settings).toEqual({
      email: { fromName: 'Client', fromAddress: 'client@example.com' },
    });
  });

  it('account: preview, schedule, read and cancel a deletion', async () => {
    const x = await createTenant(s.t);
    const own = s.contract.as(x.key);
    const preview = await own.GET('/api/v2/account/deletion-preview');
    expect(preview.response.status).toBe(200);
    expect(preview.data).toEqual({
      gracePeriodSeconds: 604800,
      resources: expect.arrayContaining([
        { resource: 'sites', action: 'delete', count: 1 },
        { resource: 'api_keys', action: 'delete', count: 1 },
      ]),
    });

    const scheduled = await own.DELETE('/api/v2/account');
    expect([scheduled.response.status, scheduled.data?.status]).toEqual([202, 'scheduled']);
    const read = await own.GET('/api/v2/account/deletion');
    expect(read.data).toEqual(scheduled.data);
    const canceled = await own.DELETE('/api/v2/account/deletion');
    expect([canceled.response.status, canceled.data?.status]).toEqual([200, 'canceled']);
    const [{ status }] = await s.t.db.query<Array<{ status: string }>>('SELECT status FROM accounts WHERE id = $1', [
      x.accountId,
    ]);
    expect(status).toBe('active');
  });

  it('called every operation of these groups through the client', () => {
    expect(s.contract.uncalled(['Health', 'API keys', 'Account', 'Admin: sites'])).toEqual([]);
  });
});
