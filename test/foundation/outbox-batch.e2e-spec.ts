import { OutboxRelay } from '../../src/common/outbox/outbox-relay.service';
import { recordEvents } from '../../src/common/outbox/record-event';
import { EMAIL_EVENTS } from '../../src/email/email.events';
import { WebhookDeliveryEntity } from '../../src/webhooks/entities/webhook-delivery.entity';
import { startApp, TestApp } from '../support/app';
import { statementsDuring } from '../support/statements';
import { createTenant, Tenant } from '../support/tenant';

/**
 * What a relay batch costs in statements (docs/performance.md, "Outbox"): a campaign records one
 * `email.sent` per copy, and each used to cost a savepoint, a read of its site's webhook
 * endpoints and a release. Jobs are off here, so only this test's calls dispatch.
 */
describe('outbox relay batches', () => {
  let t: TestApp;
  let relay: OutboxRelay;
  let quiet: Tenant;
  let hooked: Tenant;
  let endpointId: number;

  const sent = (n: number, from: number) =>
    Array.from({ length: n }, (_, i) => ({
      messageId: from + i,
      batchId: 'bench-batch',
      to: `reader${from + i}@example.com`,
      templateType: null,
      tags: [],
      smtpMessageId: `<m${from + i}@example.com>`,
    }));
  const record = (tenant: Tenant, n: number, from: number) =>
    t.db.transaction((em) =>
      recordEvents(em, { accountId: tenant.accountId, id: tenant.siteId }, EMAIL_EVENTS.sent, sent(n, from)),
    );
  /** Dispatches until nothing is left; answers the statements sent meanwhile. */
  const drain = () =>
    statementsDuring(async () => {
      while ((await relay.dispatchBatch()) > 0);
    });
  const undispatched = async (tenant: Tenant): Promise<number> =>
    (
      await t.db.query('SELECT count(*)::int AS n FROM outbox_events WHERE site_id = $1 AND dispatched_at IS NULL', [
        tenant.siteId,
      ])
    )[0].n;

  beforeAll(async () => {
    // The key limit's counters are flushed to PostgreSQL by a timer: off, so every statement counted is the relay's.
    t = await startApp({ env: { JOBS_ENABLED: 'false', RATE_LIMIT_KEY_MAX: '0', RATE_LIMIT_SESSION_MAX: '0' } });
    relay = t.app.get(OutboxRelay);
    quiet = await createTenant(t);
    hooked = await createTenant(t);
    endpointId = (
      await hooked.api
        .post(`/api/v2/sites/${hooked.siteName}/webhooks`)
        .send({ url: 'https://93.184.215.14/hooks', eventTypes: ['email.sent'] })
        .expect(201)
    ).body.id;
    // Whatever earlier files left in this database is dispatched first.
    await drain();
  });
  afterAll(() => t.close());

  it('dispatches events no subscriber wants without a statement of their own', async () => {
    await record(quiet, 150, 1);
    expect(await undispatched(quiet)).toBe(150);
    const statements = await drain();
    expect(await undispatched(quiet)).toBe(0);
    expect(statements.filter((s) => /SAVEPOINT/.test(s))).toEqual([]);
    // The batch's claim, one read of the site's endpoints, the mark, the transaction: per batch.
    expect(statements.filter((s) => /FROM webhook_endpoints/.test(s))).toHaveLength(1);
    expect(statements.length).toBeLessThanOrEqual(8);
    const deliveries = await t.db.getRepository(WebhookDeliveryEntity).countBy({ siteId: quiet.siteId });
    expect(deliveries).toBe(0);
  });

  it('reads each site’s endpoints once a batch and gives a savepoint only to the events that have somewhere to go', async () => {
    // Interleaved: 20 events of a site with an endpoint for email.sent, 20 of one without.
    for (let i = 0; i < 4; i++) {
      await record(hooked, 5, 1000 + i * 5);
      await record(quiet, 5, 2000 + i * 5);
    }
    const statements = await drain();
    expect(await undispatched(hooked)).toBe(0);
    expect(await undispatched(quiet)).toBe(0);
    expect(statements.filter((s) => /FROM webhook_endpoints/.test(s))).toHaveLength(2);
    expect(statements.filter((s) => /^SAVEPOINT/.test(s))).toHaveLength(20);
    expect(statements.filter((s) => /^RELEASE SAVEPOINT/.test(s))).toHaveLength(20);
    // Every event of the hooked site became one delivery to its endpoint; the quiet site's none.
    const deliveries = await t.db.getRepository(WebhookDeliveryEntity).findBy({ endpointId });
    expect(deliveries).toHaveLength(20);
    expect(new Set(deliveries.map((d) => d.eventId)).size).toBe(20);
    expect(await t.db.getRepository(WebhookDeliveryEntity).countBy({ siteId: quiet.siteId })).toBe(0);
  });

  it('sees an endpoint enabled between batches', async () => {
    const late = (
      await quiet.api
        .post(`/api/v2/sites/${quiet.siteName}/webhooks`)
        .send({ url: 'https://93.184.215.14/late', eventTypes: ['email.*'] })
        .expect(201)
    ).body.id as number;
    await record(quiet, 3, 3000);
    await drain();
    expect(await t.db.getRepository(WebhookDeliveryEntity).countBy({ endpointId: late })).toBe(3);
  });
});
