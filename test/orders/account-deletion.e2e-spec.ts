import { AccountDeletionEntity } from '../../src/account/entities/account-deletion.entity';
import { SiteEntity } from '../../src/common/tenancy/entities/site.entity';
import { FulfillmentNotificationEntity } from '../../src/orders/entities/fulfillment-notification.entity';
import { FulfillmentSecretEntity } from '../../src/orders/entities/fulfillment-secret.entity';
import { OrderLineEntity } from '../../src/orders/entities/order-line.entity';
import { OrderNumberEntity } from '../../src/orders/entities/order-number.entity';
import { OrderShipmentEntity } from '../../src/orders/entities/order-shipment.entity';
import { OrderEntity } from '../../src/orders/entities/order.entity';
import { eventually } from '../support/app';
import { Tenant, withTenants } from '../support/tenant';
import { makeOrder, makeProduct, Made, notify, ordersUrl, rotateSecret } from './orders-fixtures';

/** Account deletion: orders are kept, anonymised, for accounting; they outlive their site. */
describe('orders in an account deletion', () => {
  const ctx = withTenants(2, { env: { ACCOUNT_DELETION_GRACE_SECONDS: '0' } });

  async function ordersOf(x: Tenant): Promise<Made> {
    const p = await makeProduct(x, { name: 'Mug', unitAmount: 1200 });
    const order = await makeOrder(x, [[p.id, 2]], {
      customer: { email: 'ada@example.com', name: 'Ada', phone: '+44 1' },
      shippingAddress: { line1: '12 Harbour Street', city: 'Bristol', country: 'GB' },
      metadata: { cartId: 'c_1' },
    });
    const [line] = order.lines;
    const secret = await rotateSecret(x);
    await notify(
      ctx.t,
      x,
      {
        id: `ntf_${order.id}`,
        orderId: order.id,
        shipment: { carrier: 'DHL', trackingNumber: 'JD01', lines: [{ lineId: line.id, quantity: 1 }] },
      },
      secret,
    ).expect(200);
    await x.api
      .patch(ordersUrl(x, `/${order.id}/payment`))
      .send({ paymentStatus: 'paid' })
      .expect(200);
    return order;
  }

  it('the preview says anonymise; the purge keeps the orders without their customer, and deletes the rest', async () => {
    const [x, other] = ctx.tenants;
    const [order, kept] = await Promise.all([ordersOf(x), ordersOf(other)]);
    const preview = await x.api.get('/api/v2/account/deletion-preview').expect(200);
    expect(preview.body.resources).toEqual(
      expect.arrayContaining([
        { resource: 'orders', action: 'anonymise', count: 1 },
        { resource: 'order_fulfillment_notifications', action: 'delete', count: 1 },
        { resource: 'order_fulfillment_secrets', action: 'delete', count: 1 },
      ]),
    );
    const before = await ctx.t.db.getRepository(OrderEntity).findOneByOrFail({ id: order.id });
    const lines = await ctx.t.db.getRepository(OrderLineEntity).findBy({ orderId: order.id });

    const scheduled = await x.api.delete('/api/v2/account').expect(202);
    const done = await eventually(async () => {
      const row = await ctx.t.db.getRepository(AccountDeletionEntity).findOneByOrFail({ id: scheduled.body.id });
      return row.status === 'completed' ? row : undefined;
    });
    expect(done.summary).toEqual(
      expect.objectContaining({
        orders: 1,
        order_fulfillment_notifications: 1,
        order_fulfillment_secrets: 1,
        order_numbers: 1,
      }),
    );
    // The site is gone; its order is not.
    expect(await ctx.t.db.getRepository(SiteEntity).countBy({ id: x.siteId })).toBe(0);
    const after = await ctx.t.db.getRepository(OrderEntity).findOneByOrFail({ id: order.id });
    expect(after).toEqual({
      ...before,
      customerEmail: null,
      customerName: null,
      customerPhone: null,
      shippingAddress: null,
      metadata: null,
      anonymisedAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    expect([after.siteId, after.accountId, after.totalAmount, after.paymentStatus]).toEqual([
      x.siteId,
      x.accountId,
      2400,
      'paid',
    ]);
    expect(await ctx.t.db.getRepository(OrderLineEntity).findBy({ orderId: order.id })).toEqual(lines);
    expect(await ctx.t.db.getRepository(OrderShipmentEntity).findBy({ orderId: order.id })).toEqual([
      expect.objectContaining({ carrier: 'DHL', trackingNumber: '', trackingUrl: null }),
    ]);
    expect(await ctx.t.db.getRepository(FulfillmentNotificationEntity).countBy({ siteId: x.siteId })).toBe(0);
    expect(await ctx.t.db.getRepository(FulfillmentSecretEntity).countBy({ siteId: x.siteId })).toBe(0);
    expect(await ctx.t.db.getRepository(OrderNumberEntity).countBy({ siteId: x.siteId })).toBe(0);

    // The other account keeps everything.
    expect(await ctx.t.db.getRepository(OrderEntity).findOneByOrFail({ id: kept.id })).toEqual(
      expect.objectContaining({ customerEmail: 'ada@example.com', anonymisedAt: null, metadata: { cartId: 'c_1' } }),
    );
    expect(await ctx.t.db.getRepository(FulfillmentSecretEntity).countBy({ siteId: other.siteId })).toBe(1);
  });
});
