import { AccountDeletionEntity } from '../../src/account/entities/account-deletion.entity';
import { WebhookDeliveryEntity } from '../../src/webhooks/entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from '../../src/webhooks/entities/webhook-endpoint.entity';
import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { createTenant, Tenant } from '../support/tenant';

/**
 * Account deletion covers endpoints and their log, and what was not delivered yet
 * when the purge ran is dropped with a log line, never silently. The relay is held back (a long
 * poll) so that the deletion's own event is still in the outbox when a grace period of 0 ends.
 */
describe('webhooks in an account deletion', () => {
  let t: TestApp;
  let x: Tenant;
  let other: Tenant;
  const lines: Array<{ msg: string; [k: string]: unknown }> = [];

  beforeAll(async () => {
    t = await startApp({
      databaseUrl: await createFreshDatabase('webhookspurge'),
      env: { ACCOUNT_DELETION_GRACE_SECONDS: '0', OUTBOX_POLL_MS: '600000', LOG_LEVEL: 'warn' },
      logDestination: { write: (l: string) => lines.push(JSON.parse(l) as { msg: string }) },
    });
    [x, other] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(() => t.close());

  async function endpointWithPendingDelivery(tenant: Tenant): Promise<number> {
    const res = await tenant.api
      .post(`/api/v2/sites/${tenant.siteName}/webhooks`)
      .send({ url: 'https://93.184.215.14/hooks', eventTypes: ['content.*'] })
      .expect(201);
    // A delivery waiting for its retry (the endpoint was down), as the fan-out leaves it.
    await t.db.getRepository(WebhookDeliveryEntity).insert({
      siteId: tenant.siteId,
      endpointId: res.body.id as number,
      eventType: 'content.published',
      payload: '{"type":"content.published","timestamp":"2026-11-25T10:00:00.000Z","data":{"id":1}}',
      status: 'pending',
      attempts: 1,
      nextAttemptAt: new Date(Date.now() + 3600_000),
    });
    return res.body.id as number;
  }

  it('the preview counts endpoints and deliveries; the purge removes them and logs what it dropped', async () => {
    const [mine, theirs] = await Promise.all([endpointWithPendingDelivery(x), endpointWithPendingDelivery(other)]);
    const preview = await x.api.get('/api/v2/account/deletion-preview').expect(200);
    expect(preview.body.resources).toEqual(
      expect.arrayContaining([
        { resource: 'webhook_endpoints', action: 'delete', count: 1 },
        { resource: 'webhook_deliveries', action: 'delete', count: 1 },
      ]),
    );
    const scheduled = await x.api.delete('/api/v2/account').expect(202);
    const done = await eventually(async () => {
      const row = await t.db.getRepository(AccountDeletionEntity).findOneByOrFail({ id: scheduled.body.id });
      return row.status === 'completed' ? row : undefined;
    });
    expect(done.summary).toEqual(expect.objectContaining({ webhook_endpoints: 1, webhook_deliveries: 1 }));
    const endpoints = t.db.getRepository(WebhookEndpointEntity);
    const deliveries = t.db.getRepository(WebhookDeliveryEntity);
    expect(await endpoints.findOneBy({ id: mine })).toBeNull();
    expect(await deliveries.countBy({ endpointId: mine })).toBe(0);
    expect(await endpoints.countBy({ id: theirs })).toBe(1);
    expect(await deliveries.countBy({ endpointId: theirs })).toBe(1);
    // Dropped, and said so: the pending delivery, and the deletion's own event the relay never saw.
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          msg: 'Account purged: dropping webhook deliveries not yet delivered',
          accountId: x.accountId,
          pending: { 'content.published': 1 },
        }),
        expect.objectContaining({
          msg: 'Account purged: dropping events not yet dispatched',
          accountId: x.accountId,
          events: expect.objectContaining({ 'account.deletion_scheduled': 1 }),
        }),
      ]),
    );
  });
});
