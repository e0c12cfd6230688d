import { AccountDeletionEntity } from '../../src/account/entities/account-deletion.entity';
import { SenderDomainEntity } from '../../src/senders/entities/sender-domain.entity';
import { eventually, startApp, TestApp } from '../support/app';
import { createTenant, Tenant } from '../support/tenant';

/** Account deletion takes the account's sender domains and their DKIM keys, and no one else's. */
describe('account deletion: sender domains', () => {
  let t: TestApp;
  let x: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    t = await startApp({ env: { ACCOUNT_DELETION_GRACE_SECONDS: '0' } });
    [x, other] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(() => t.close());

  it('previews and purges them; another account claiming the same domain keeps its own', async () => {
    const domain = `${x.siteName}.example`;
    for (const tenant of [x, other]) await tenant.api.post('/api/v2/sender-domains').send({ domain }).expect(201);
    await x.api
      .post('/api/v2/sender-domains')
      .send({ domain: `second.${domain}` })
      .expect(201);
    const preview = await x.api.get('/api/v2/account/deletion-preview').expect(200);
    expect(preview.body.resources).toContainEqual({ resource: 'sender_domains', count: 2, action: 'delete' });

    const res = await x.api.delete('/api/v2/account').expect(202);
    const done = await eventually(async () => {
      const row = await t.db.getRepository(AccountDeletionEntity).findOneByOrFail({ id: res.body.id });
      return row.status === 'completed' ? row : undefined;
    });
    expect(done.summary).toMatchObject({ sender_domains: 2 });
    const rows = t.db.getRepository(SenderDomainEntity);
    expect(await rows.countBy({ accountId: x.accountId })).toBe(0);
    expect(await rows.findBy({ accountId: other.accountId })).toEqual([
      expect.objectContaining({ domain, status: 'pending' }),
    ]);
  });
});
