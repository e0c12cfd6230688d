import request from 'supertest';
import { AccountDeletionService } from '../../src/account/account-deletion.service';
import { AccountDeletionEntity } from '../../src/account/entities/account-deletion.entity';
import { AccountEntity } from '../../src/common/tenancy/entities/account.entity';
import { SiteEntity } from '../../src/common/tenancy/entities/site.entity';
import { ApiKeyEntity } from '../../src/api-keys/entities/api-key.entity';
import { OutboxEventEntity } from '../../src/common/outbox/outbox-event.entity';
import { eventually, startApp, TestApp } from '../support/app';
import { createTenant, uniqueName } from '../support/tenant';
import { ISO } from '../support/matchers';
import { expectExactProblem } from '../support/problem';

describe('account purge (ACCOUNT_DELETION_GRACE_SECONDS=0)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ env: { ACCOUNT_DELETION_GRACE_SECONDS: '0' } });
  });
  afterAll(() => t.close());

  const count = async (sql: string, params: unknown[]) => Number((await t.db.query(sql, params))[0].n);

  it('the purge job removes the account, its sites, keys, events and idempotency keys, and keeps a record', async () => {
    const [x, other] = await Promise.all([createTenant(t), createTenant(t)]);
    const second = await x.api.post('/api/v2/sites').send({ name: uniqueName() });
    const idem = await x.api
      .post('/api/v2/api-keys')
      .set('Idempotency-Key', uniqueName('idem'))
      .send({ name: 'extra' });
    expect([second.status, idem.status]).toEqual([201, 201]);
    const otherBefore = {
      sites: await t.db.getRepository(SiteEntity).findBy({ accountId: other.accountId }),
      keys: await t.db.getRepository(ApiKeyEntity).findBy({ accountId: other.accountId }),
      events: await t.db.getRepository(OutboxEventEntity).countBy({ accountId: other.accountId }),
    };

    const res = await x.api.delete('/api/v2/account');
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      id: expect.any(Number),
      status: 'scheduled',
      requestedAt: ISO,
      purgeAfter: ISO,
      canceledAt: null,
      completedAt: null,
    });
    expect(Date.parse(res.body.purgeAfter) - Date.parse(res.body.requestedAt)).toBeLessThan(5000);

    const done = await eventually(async () => {
      const row = await t.db.getRepository(AccountDeletionEntity).findOneByOrFail({ id: res.body.id });
      return row.status === 'completed' ? row : undefined;
    });
    expect(done).toEqual({
      id: res.body.id,
      accountId: x.accountId,
      status: 'completed',
      requestedAt: new Date(res.body.requestedAt),
      purgeAfter: new Date(res.body.purgeAfter),
      canceledAt: null,
      completedAt: expect.any(Date),
      requestedByKeyId: x.keyId,
      summary: expect.any(Object),
    });
    // Events: site.created x2, api_key.created x2, account.deletion_scheduled. Modules added later
    // report their resources too, with nothing to purge for this account.
    const { api_keys, sites, events, ...rest } = done.summary!;
    expect({ api_keys, sites, events }).toEqual({ api_keys: 2, sites: 2, events: 5 });
    for (const n of Object.values(rest)) expect(n).toBe(0);

    expect(await t.db.getRepository(AccountEntity).countBy({ id: x.accountId })).toBe(0);
    expect(await t.db.getRepository(SiteEntity).countBy({ accountId: x.accountId })).toBe(0);
    expect(await t.db.getRepository(ApiKeyEntity).countBy({ accountId: x.accountId })).toBe(0);
    expect(await t.db.getRepository(OutboxEventEntity).countBy({ accountId: x.accountId })).toBe(0);
    expect(await count('SELECT count(*) AS n FROM idempotency_keys WHERE scope = $1', [`account:${x.accountId}`])).toBe(
      0,
    );

    const after = await request(t.server).get('/api/v2/api-keys').set('x-api-key', x.key);
    expectExactProblem(after, 401, 'invalid_api_key', 'Unauthorized', 'The API key is invalid or revoked');
    const site = await other.api.get(`/api/v2/sites/${x.siteName}`);
    expectExactProblem(site, 404, 'site_not_found', 'Not found', 'Site not found');

    // The other tenant is untouched and still works.
    expect(await t.db.getRepository(SiteEntity).findBy({ accountId: other.accountId })).toEqual(otherBefore.sites);
    expect(
      (await t.db.getRepository(ApiKeyEntity).findBy({ accountId: other.accountId })).map((k) => ({
        ...k,
        lastUsedAt: null,
      })),
    ).toEqual(otherBefore.keys.map((k) => ({ ...k, lastUsedAt: null })));
    expect(await t.db.getRepository(OutboxEventEntity).countBy({ accountId: other.accountId })).toBe(
      otherBefore.events,
    );
    expect((await t.db.getRepository(AccountEntity).findOneByOrFail({ id: other.accountId })).status).toBe('active');
    expect((await other.api.get(`/api/v2/sites/${other.siteName}`)).status).toBe(200);
  });

  it('the job leaves a canceled deletion alone, and running it again after completion does nothing', async () => {
    const x = await createTenant(t);
    const deletions = t.db.getRepository(AccountDeletionEntity);
    const canceled = await deletions.save(
      deletions.create({
        accountId: x.accountId,
        status: 'canceled',
        purgeAfter: new Date(Date.now() - 1000),
        canceledAt: new Date(),
        completedAt: null,
        requestedByKeyId: x.keyId,
        summary: null,
      }),
    );
    const service = t.app.get(AccountDeletionService);
    await service.purge(canceled.id);
    expect(await deletions.findOneByOrFail({ id: canceled.id })).toEqual(canceled);
    expect(await t.db.getRepository(AccountEntity).countBy({ id: x.accountId })).toBe(1);
    expect((await x.api.get('/api/v2/api-keys')).status).toBe(200);

    const res = await x.api.delete('/api/v2/account');
    expect(res.status).toBe(202);
    const done = await eventually(async () => {
      const row = await deletions.findOneByOrFail({ id: res.body.id });
      return row.status === 'completed' ? row : undefined;
    });
    await service.purge(res.body.id);
    expect(await deletions.findOneByOrFail({ id: res.body.id })).toEqual(done);
  });
});
