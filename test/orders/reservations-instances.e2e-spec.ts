import request from 'supertest';
import { ProductEntity } from '../../src/catalog/entities/product.entity';
import { Clock } from '../../src/common/scheduling/clock';
import { OrderEntity } from '../../src/orders/entities/order.entity';
import { ORDER_EXPIRY_JOB, OrderExpiryJob } from '../../src/orders/order-expiry.job';
import { sql } from '../../src/database/sql';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { SessionsService } from '../../src/users/auth/sessions.service';
import { eventually, startApp, TestApp } from '../support/app';
import { eventsOf, lastEventId } from '../support/events';
import { createTenant, Tenant } from '../support/tenant';
import { makeProduct, ordersUrl } from './orders-fixtures';

const MINUTE = 60_000;
const ORDERS = 10;

/**
 * docs/orders.md, "Reservations": two instances on one database expire the same orders at the
 * same time (their sweeps, their jobs, their queue workers); each order is canceled once and its
 * stock given back once.
 */
async function placeHeldOrders(
  app: TestApp,
  x: Tenant,
): Promise<{ productId: number; orderIds: number[]; userId: number }> {
  await x.api
    .patch(`/api/v2/sites/${x.siteName}`)
    .send({ settings: { orders: { maxPendingPerUser: ORDERS, maxHeldPerProduct: 2 * ORDERS } } })
    .expect(200);
  const print = await makeProduct(x, { name: 'Limited print', quantityAvailable: 2 * ORDERS });
  const user = await app.db
    .getRepository(SiteUserEntity)
    .save({ siteId: x.siteId, email: 'holder@example.com', name: 'Holder', status: 'active', metadata: {} });
  const { token } = await app.db.transaction((em) => app.app.get(SessionsService).create(em, user, {}));
  const orderIds: number[] = [];
  for (let i = 0; i < ORDERS; i++) {
    const res = await request(app.server)
      .post(ordersUrl(x))
      .set('authorization', `Bearer ${token}`)
      .send({ lines: [{ productId: print.id, quantity: 2 }] })
      .expect(201);
    orderIds.push(res.body.id as number);
  }
  return { productId: print.id, orderIds, userId: user.id };
}

/** Every instance's clock `ms` ahead of the real one. */
function moveClocks(apps: TestApp[], ms: number): void {
  const at = new Date(Date.now() + ms);
  for (const app of apps) jest.spyOn(app.app.get(Clock), 'now').mockReturnValue(at);
}

/** The outcome every variant must have: each order canceled once (one `order.canceled`), the stock exactly back. */
async function expectCanceledOnce(
  app: TestApp,
  x: Tenant,
  held: { productId: number; orderIds: number[] },
  after: number,
): Promise<void> {
  const rows = await app.db.getRepository(OrderEntity).findBy({ siteId: x.siteId });
  expect(rows.map((o) => [o.id, o.fulfillmentStatus]).sort()).toEqual(
    held.orderIds.map((id) => [id, 'canceled']).sort(),
  );
  const canceled = (await eventsOf(app, x, after)).filter((e) => e.name === 'order.canceled');
  expect(canceled.map((e) => e.payload.id).sort()).toEqual([...held.orderIds].sort());
  expect(canceled.every((e) => e.payload.reason === 'expired')).toBe(true);
  const product = await app.db.getRepository(ProductEntity).findOneByOrFail({ id: held.productId });
  expect(product.quantityAvailable).toBe(2 * ORDERS);
}

describe('order expiry on two instances of one database', () => {
  afterEach(() => jest.restoreAllMocks());

  describe('both sweep and run every job at the same moment', () => {
    let one: TestApp;
    let two: TestApp;
    beforeAll(async () => {
      const options = { env: { CATALOG_CACHE_TTL_MS: '0', JOBS_ENABLED: 'false' } };
      [one, two] = await Promise.all([startApp(options), startApp(options)]);
    });
    afterAll(() => Promise.all([one?.close(), two?.close()]));

    it('each order is canceled by exactly one of them', async () => {
      const x = await createTenant(one);
      const held = await placeHeldOrders(one, x);
      const stock = await one.db.getRepository(ProductEntity).findOneByOrFail({ id: held.productId });
      expect(stock.quantityAvailable).toBe(0);
      const after = await lastEventId(one);
      moveClocks([one, two], 31 * MINUTE);

      const [j1, j2] = [one.app.get(OrderExpiryJob), two.app.get(OrderExpiryJob)];
      const data = held.orderIds.map((orderId) => ({ siteId: x.siteId, orderId }));
      const [sweptByOne, sweptByTwo, ...ran] = await Promise.all([
        j1.sweep(),
        j2.sweep(),
        ...data.map((d, i) => (i % 2 ? j1 : j2).run(d)),
        ...data.map((d, i) => (i % 2 ? j2 : j1).run(d)),
      ]);
      // Every cancel is counted by the call that made it: ten in all, whoever made them.
      expect(sweptByOne + sweptByTwo + ran.filter((r) => r === true).length).toBe(ORDERS);
      await expectCanceledOnce(one, x, held, after);

      // Again, on both: nothing left to do.
      expect(await Promise.all([j1.sweep(), j2.sweep(), j1.run(data[0]), j2.run(data[0])])).toEqual([
        0,
        0,
        false,
        false,
      ]);
      await expectCanceledOnce(one, x, held, after);
    });
  });

  describe('with both queue workers running', () => {
    let one: TestApp;
    let two: TestApp;
    beforeAll(async () => {
      const options = { env: { CATALOG_CACHE_TTL_MS: '0', JOBS_ENABLED: 'true', JOBS_POLL_SECONDS: '1' } };
      [one, two] = await Promise.all([startApp(options), startApp(options)]);
    });
    afterAll(() => Promise.all([one?.close(), two?.close()]));

    it('the workers of both take the due jobs (and the minute sweep may run meanwhile): each order canceled once', async () => {
      const x = await createTenant(one);
      const held = await placeHeldOrders(one, x);
      const after = await lastEventId(one);
      moveClocks([one, two], 31 * MINUTE);
      const ids = held.orderIds.map(String);
      // The jobs are due now for the queue too (its clock is the database's, not the app's).
      const { rowCount } = await sql(
        one.db,
        `UPDATE pgboss.job SET start_after = now() WHERE name = $1 AND data->>'orderId' = ANY($2)`,
        [ORDER_EXPIRY_JOB, ids],
      );
      expect(rowCount).toBe(ORDERS);
      // Every job ends completed (one that found its order canceled by the sweep did nothing).
      await eventually(async () => {
        const rows = await one.db.query<Array<{ state: string }>>(
          `SELECT state FROM pgboss.job WHERE name = $1 AND data->>'orderId' = ANY($2)`,
          [ORDER_EXPIRY_JOB, ids],
        );
        return rows.length === ORDERS && rows.every((r) => r.state === 'completed') ? true : undefined;
      }, 30_000);
      await expectCanceledOnce(one, x, held, after);
    });
  });
});
