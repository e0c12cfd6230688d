import { FulfillmentNotificationEntity } from '../../src/orders/entities/fulfillment-notification.entity';
import { FulfillmentSecretEntity } from '../../src/orders/entities/fulfillment-secret.entity';
import { OrderShipmentEntity } from '../../src/orders/entities/order-shipment.entity';
import { OrderEntity } from '../../src/orders/entities/order.entity';
import { ProductEntity } from '../../src/catalog/entities/product.entity';
import { signatureHeader } from '../../src/orders/fulfillment-signature';
import { snapshotDatabase } from '../support/db-snapshot';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';
import { expectExactProblem, expectProblem } from '../support/problem';
import { Tenant, withTenants } from '../support/tenant';
import { makeOrder, makeProduct, notify, ordersUrl, rotateSecret } from './orders-fixtures';

/** POST …/orders/fulfillment-notifications: signed by the provider, applied once per id. */
describe('fulfillment notifications', () => {
  const ctx = withTenants(3, { env: { FULFILLMENT_SECRET_GRACE_SECONDS: '3600' } });
  let a: Tenant;
  let b: Tenant;
  const orders = () => ctx.t.db.getRepository(OrderEntity);
  const now = () => Math.floor(Date.now() / 1000);

  beforeAll(() => {
    [a, b] = ctx.tenants;
  });

  it('the rotation route makes the site’s secret, answers it once, and keeps it out of site responses', async () => {
    const res = await a.api.post(ordersUrl(a, '/fulfillment-secret')).expect(200);
    expect(res.body).toEqual({
      secret: expect.stringMatching(/^fsec_[A-Za-z0-9_-]{43}$/),
      previousSecretExpiresAt: null,
      createdAt: ISO,
      updatedAt: ISO,
    });
    expect(await ctx.t.db.getRepository(FulfillmentSecretEntity).findOneByOrFail({ siteId: a.siteId })).toEqual(
      expect.objectContaining({ secret: res.body.secret, previousSecret: null }),
    );
    const site = await a.api.get(`/api/v2/sites/${a.siteName}`).expect(200);
    expect(JSON.stringify(site.body)).not.toContain(res.body.secret);
  });

  it('a signed notification ships; a replay of its id answers the same and changes nothing', async () => {
    const secret = await rotateSecret(a);
    const p = await makeProduct(a, { quantityAvailable: 5 });
    const order = await makeOrder(a, [[p.id, 2]]);
    const [line] = order.lines;
    const body = {
      id: `ntf_${order.id}_1`,
      orderId: order.id,
      shipment: { carrier: 'DHL', trackingNumber: 'JD77', lines: [{ lineId: line.id, quantity: 1 }] },
    };
    const after = await lastEventId(ctx.t);
    const first = await notify(ctx.t, a, body, secret).expect(200);
    const shipment = await ctx.t.db.getRepository(OrderShipmentEntity).findOneByOrFail({ orderId: order.id });
    expect(first.body).toEqual({
      id: body.id,
      orderId: order.id,
      fulfillmentStatus: 'partially_fulfilled',
      shipmentId: shipment.id,
      receivedAt: ISO,
    });
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(shipment).toEqual(
      expect.objectContaining({ carrier: 'DHL', trackingNumber: 'JD77', notificationId: body.id }),
    );
    expect((await eventsOf(ctx.t, a, after)).map((e) => e.name)).toEqual(['order.fulfillment_updated']);

    const before = await snapshotDatabase(ctx.t.db);
    const mark = await lastEventId(ctx.t);
    // The same id, later and even with another change: the first outcome, nothing applied.
    for (const replay of [body, { ...body, shipment: { ...body.shipment, trackingNumber: 'OTHER' } }]) {
      const again = await notify(ctx.t, a, replay, secret).expect(200);
      expect(again.body).toEqual(first.body);
      expect(again.headers['idempotent-replayed']).toBe('true');
    }
    expect(await eventsOf(ctx.t, a, mark)).toEqual([]);
    const afterReplays = await snapshotDatabase(ctx.t.db);
    for (const table of [
      'orders',
      'order_lines',
      'order_shipments',
      'order_fulfillment_notifications',
      'email_messages',
    ])
      expect([table, afterReplays[table]]).toEqual([table, before[table]]);

    // A second notification (another id) cancels: what was not shipped goes back to stock.
    const cancel = await notify(
      ctx.t,
      a,
      { id: `ntf_${order.id}_2`, orderId: order.id, status: 'canceled' },
      secret,
    ).expect(200);
    expect(cancel.body).toEqual(expect.objectContaining({ fulfillmentStatus: 'canceled', shipmentId: null }));
    expect((await ctx.t.db.getRepository(ProductEntity).findOneByOrFail({ id: p.id })).quantityAvailable).toBe(4);
    expect(await ctx.t.db.getRepository(FulfillmentNotificationEntity).countBy({ orderId: order.id })).toBe(2);
  });

  it('concurrent deliveries of one notification apply it once', async () => {
    const secret = await rotateSecret(a);
    const p = await makeProduct(a);
    const order = await makeOrder(a, [[p.id, 5]]);
    const [line] = order.lines;
    const body = {
      id: `ntf_race_${order.id}`,
      orderId: order.id,
      shipment: { carrier: 'DHL', trackingNumber: 'R1', lines: [{ lineId: line.id, quantity: 1 }] },
    };
    const results = await Promise.all(Array.from({ length: 8 }, () => notify(ctx.t, a, body, secret)));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(results.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(7);
    expect(new Set(results.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(await ctx.t.db.getRepository(OrderShipmentEntity).countBy({ orderId: order.id })).toBe(1);
  });

  it('a missing, malformed, forged or stale signature is a 401, and nothing changes', async () => {
    const secret = await rotateSecret(a);
    const p = await makeProduct(a);
    const order = await makeOrder(a, [[p.id, 1]]);
    const body = { id: `ntf_forged_${order.id}`, orderId: order.id, status: 'canceled' };
    const text = JSON.stringify(body);
    const c = ctx.tenants[2];
    const cOrder = await makeOrder(c, [[(await makeProduct(c)).id, 1]]);
    const before = await snapshotDatabase(ctx.t.db);
    const detail = {
      malformed: 'The x-sitebase-signature header is missing or malformed (t=<unix seconds>,v1=<hex HMAC-SHA256>)',
      stale: 'The signature timestamp is more than 5 minutes away from now',
      mismatch: "The signature does not match the body with the site's fulfillment secret",
    };
    const cases: Array<[string, () => ReturnType<typeof notify>, keyof typeof detail]> = [
      ['no signature', () => notify(ctx.t, a, body, null), 'malformed'],
      ['another secret', () => notify(ctx.t, a, body, 'fsec_forged'), 'mismatch'],
      ['another site’s secret', () => notify(ctx.t, a, body, ctx.tenants[2].key), 'mismatch'],
      ['6 minutes old', () => notify(ctx.t, a, body, secret, now() - 360), 'stale'],
      ['6 minutes ahead', () => notify(ctx.t, a, body, secret, now() + 360), 'stale'],
      [
        'a body changed after signing',
        () =>
          notify(ctx.t, a, body, null).set(
            'x-sitebase-signature',
            signatureHeader(secret, now(), text.replace('canceled', 'fulfilled')),
          ),
        'mismatch',
      ],
      [
        'the same JSON written differently',
        () => notify(ctx.t, a, body, null).set('x-sitebase-signature', signatureHeader(secret, now(), ` ${text}`)),
        'mismatch',
      ],
      [
        'a signature without t',
        () =>
          notify(ctx.t, a, body, null).set(
            'x-sitebase-signature',
            signatureHeader(secret, now(), text).replace(/^t=\d+,/, ''),
          ),
        'malformed',
      ],
      ['garbage', () => notify(ctx.t, a, body, null).set('x-sitebase-signature', 'sha256=abc'), 'malformed'],
      ['a key instead of a signature', () => notify(ctx.t, a, body, null).set('x-api-key', a.key), 'malformed'],
    ];
    for (const [label, send, why] of cases) {
      const res = await send();
      expect([label, res.status]).toEqual([label, 401]);
      expectExactProblem(res, 401, 'invalid_signature', 'Unauthorized', detail[why]);
    }
    // A site without a secret verifies nothing.
    expectProblem(
      await notify(ctx.t, c, { id: 'n1', orderId: cOrder.id, status: 'canceled' }, 'fsec_guess'),
      401,
      'invalid_signature',
    );
    const after = await snapshotDatabase(ctx.t.db);
    for (const table of ['orders', 'order_fulfillment_notifications', 'order_shipments'])
      expect([table, after[table]]).toEqual([table, before[table]]);
    expect((await orders().findOneByOrFail({ id: order.id })).fulfillmentStatus).toBe('unfulfilled');
  });

  it('after a rotation the previous secret verifies during the grace period, with both listed', async () => {
    const old = await rotateSecret(b);
    const res = await b.api.post(ordersUrl(b, '/fulfillment-secret')).expect(200);
    expect(res.body.secret).not.toBe(old);
    const expires = Date.parse(res.body.previousSecretExpiresAt as string);
    expect(expires - Date.now()).toBeGreaterThan(3500_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(3600_000);
    const p = await makeProduct(b);
    const order = await makeOrder(b, [[p.id, 3]]);
    const [line] = order.lines;
    const ship = (id: string) => ({
      id,
      orderId: order.id,
      shipment: { carrier: 'DHL', trackingNumber: id, lines: [{ lineId: line.id, quantity: 1 }] },
    });
    await notify(ctx.t, b, ship('by-old'), old).expect(200);
    await notify(ctx.t, b, ship('by-new'), res.body.secret as string).expect(200);
    // Past the grace period the old one is refused.
    await ctx.t.db
      .getRepository(FulfillmentSecretEntity)
      .update({ siteId: b.siteId }, { previousSecretExpiresAt: new Date(Date.now() - 1000) });
    expectProblem(await notify(ctx.t, b, ship('by-old-late'), old), 401, 'invalid_signature');
    // Several v1 in one header: one that verifies is enough.
    const t = now();
    const text = JSON.stringify(ship('two-signatures'));
    const both = `${signatureHeader('fsec_wrong', t, text)},${signatureHeader(res.body.secret as string, t, text).split(',')[1]}`;
    await notify(ctx.t, b, text, null).set('x-sitebase-signature', both).expect(200);
  });

  it('keeps the foundation’s body rules: 413 past BODY_LIMIT, 415 for another media type, 400 for malformed JSON', async () => {
    const secret = await rotateSecret(a);
    const big = JSON.stringify({ id: 'big', orderId: 1, status: 'canceled', pad: 'x'.repeat(1_100_000) });
    expectProblem(await notify(ctx.t, a, big, secret), 413, 'payload_too_large');
    const text = JSON.stringify({ id: 'plain', orderId: 1, status: 'canceled' });
    const plain = await notify(ctx.t, a, text, secret).set('content-type', 'text/plain');
    expectProblem(plain, 415, 'unsupported_media_type');
    expectProblem(await notify(ctx.t, a, '{"id":', secret), 400, 'malformed_json');
    expectProblem(await notify(ctx.t, a, `{"id":"x","orderId":1,"__proto__":{}}`, secret), 400, 'validation_failed');
  });

  it('a bad body is a 400 naming the field; an order of another site, or none, a 404; a forbidden change a 409', async () => {
    const secret = await rotateSecret(a);
    const p = await makeProduct(a);
    const order = await makeOrder(a, [[p.id, 1]]);
    for (const [body, path] of [
      [{ orderId: order.id, status: 'canceled' }, 'id'],
      [{ id: 'has space', orderId: order.id, status: 'canceled' }, 'id'],
      [{ id: 'x'.repeat(201), orderId: order.id, status: 'canceled' }, 'id'],
      [{ id: 'n', status: 'canceled' }, 'orderId'],
      [{ id: 'n', orderId: order.id }, 'shipment'],
      [{ id: 'n', orderId: order.id, status: 'lost' }, 'status'],
      [{ id: 'n', orderId: order.id, status: 'canceled', extra: 1 }, 'extra'],
    ] as const) {
      const res = await notify(ctx.t, a, body, secret);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const bOrder = await makeOrder(b, [[(await makeProduct(b)).id, 1]]);
    expectProblem(
      await notify(ctx.t, a, { id: 'elsewhere', orderId: bOrder.id, status: 'canceled' }, secret),
      404,
      'not_found',
    );
    expectProblem(
      await notify(ctx.t, a, { id: 'nowhere', orderId: 999_999_999, status: 'canceled' }, secret),
      404,
      'not_found',
    );
    await notify(ctx.t, a, { id: `done_${order.id}`, orderId: order.id, status: 'fulfilled' }, secret).expect(200);
    const refused = await notify(ctx.t, a, { id: `late_${order.id}`, orderId: order.id, status: 'canceled' }, secret);
    expectProblem(refused, 409, 'transition_forbidden');
    // A refused notification is not kept: fixed and sent again under its id, it applies.
    expect(
      await ctx.t.db.getRepository(FulfillmentNotificationEntity).countBy({ notificationId: `late_${order.id}` }),
    ).toBe(0);
    expect(await ctx.t.db.getRepository(FulfillmentNotificationEntity).countBy({ notificationId: 'elsewhere' })).toBe(
      0,
    );
  });
});
