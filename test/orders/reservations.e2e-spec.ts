import request from 'supertest';
import { ProductEntity } from '../../src/catalog/entities/product.entity';
import { SiteEntity } from '../../src/common/tenancy/entities/site.entity';
import { Clock } from '../../src/common/scheduling/clock';
import { OrderEntity } from '../../src/orders/entities/order.entity';
import { ORDER_EXPIRY_JOB, OrderExpiryJob } from '../../src/orders/order-expiry.job';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { SessionsService } from '../../src/users/auth/sessions.service';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';
import { expectExactProblem, expectProblem } from '../support/problem';
import { expectSettingsRefused } from '../support/site-settings';
import { Tenant, withTenants } from '../support/tenant';
import { makeOrder, makeProduct, orderBody, ordersUrl } from './orders-fixtures';

const MINUTE = 60_000;

/**
 * docs/orders.md, "Reservations": an unpaid order holds its stock until `expiresAt`; then the
 * expiry (its job, or the sweep) cancels it once and gives the stock back. The app's Clock is
 * moved (jest.spyOn) rather than the process's timers; the queue's workers are off
 * (JOBS_ENABLED=false), so only the calls below run the expiry.
 */
describe('stock reservations: unpaid orders expire', () => {
  const ctx = withTenants(2, {
    freshDatabase: 'holds',
    env: { CATALOG_CACHE_TTL_MS: '0', JOBS_ENABLED: 'false' },
  });
  let a: Tenant;
  let b: Tenant;
  let users = 0;
  const orders = () => ctx.t.db.getRepository(OrderEntity);
  const stockOf = async (id: number) =>
    (await ctx.t.db.getRepository(ProductEntity).findOneByOrFail({ id })).quantityAvailable;
  const expiry = () => ctx.t.app.get(OrderExpiryJob);
  /** Sets the app's clock `to` ms from the real now, or to a date; answers the date. */
  const moveClock = (to: number | Date): Date => {
    const at = typeof to === 'number' ? new Date(Date.now() + to) : to;
    jest.spyOn(ctx.t.app.get(Clock), 'now').mockReturnValue(at);
    return at;
  };
  const siteUrl = (x: Tenant) => `/api/v2/sites/${x.siteName}`;
  /** The expiry jobs queued for an order: when each starts. */
  const jobsOf = async (orderId: number): Promise<Date[]> =>
    (
      await ctx.t.db.query<Array<{ start_after: Date }>>(
        `SELECT start_after FROM pgboss.job WHERE name = $1 AND data->>'orderId' = $2`,
        [ORDER_EXPIRY_JOB, String(orderId)],
      )
    ).map((r) => r.start_after);

  /** A site user of `x` with a session; answers the agent's header and the user's id. */
  async function signedIn(x: Tenant): Promise<{ auth: { authorization: string }; userId: number }> {
    users += 1;
    const user = await ctx.t.db
      .getRepository(SiteUserEntity)
      .save({ siteId: x.siteId, email: `buyer${users}@example.com`, name: 'Buyer', status: 'active', metadata: {} });
    const { token } = await ctx.t.db.transaction((em) => ctx.t.app.get(SessionsService).create(em, user, {}));
    return { auth: { authorization: `Bearer ${token}` }, userId: user.id };
  }

  const sessionOrder = (x: Tenant, auth: { authorization: string }, lines: Array<[number, number]>) =>
    request(ctx.t.server)
      .post(ordersUrl(x))
      .set(auth)
      .send({ lines: lines.map(([productId, quantity]) => ({ productId, quantity })) });

  beforeAll(() => {
    [a, b] = ctx.tenants;
  });
  afterEach(() => jest.restoreAllMocks());

  it('a session order of the whole stock holds it for 30 minutes; then it is canceled once and the stock is back', async () => {
    const print = await makeProduct(a, { name: 'Limited print', quantityAvailable: 3 });
    const { auth, userId } = await signedIn(a);
    const placed = await sessionOrder(a, auth, [[print.id, 3]]).expect(201);
    const id = placed.body.id as number;
    expect(placed.body).toEqual(
      expect.objectContaining({ userId, paymentStatus: 'pending', fulfillmentStatus: 'unfulfilled', expiresAt: ISO }),
    );
    const expiresAt = new Date(placed.body.expiresAt);
    expect(Math.abs(expiresAt.getTime() - Date.parse(placed.body.createdAt) - 30 * MINUTE)).toBeLessThan(5000);
    // Its job was queued with it, to start when the hold ends.
    expect(await jobsOf(id)).toEqual([expiresAt]);
    expect(await stockOf(print.id)).toBe(0);
    // The operator's own order finds no stock.
    const refused = await a.api.post(ordersUrl(a)).send(orderBody([[print.id, 1]]));
    expectExactProblem(refused, 409, 'out_of_stock', 'Conflict', 'Not enough stock of Limited print for 1');

    // A millisecond before the end of the hold, neither the job nor the sweep touch it.
    const before = await lastEventId(ctx.t);
    moveClock(new Date(expiresAt.getTime() - 1));
    expect(await expiry().run({ siteId: a.siteId, orderId: id })).toBe(false);
    await expiry().sweep();
    expect(await orders().findOneByOrFail({ id })).toEqual(
      expect.objectContaining({ fulfillmentStatus: 'unfulfilled', canceledAt: null, expiresAt }),
    );
    expect(await eventsOf(ctx.t, a, before)).toEqual([]);

    // At its end, the job cancels it: the stock is back, and order.canceled says why.
    const now = moveClock(30 * MINUTE + 1000);
    expect(await expiry().run({ siteId: a.siteId, orderId: id })).toBe(true);
    const row = await orders().findOneByOrFail({ id });
    expect(row).toEqual(
      expect.objectContaining({
        paymentStatus: 'pending',
        fulfillmentStatus: 'canceled',
        canceledAt: now,
        // An expired order keeps the end of its hold.
        expiresAt,
      }),
    );
    expect(await stockOf(print.id)).toBe(3);
    const events = await eventsOf(ctx.t, a, before);
    expect(events.map((e) => e.name)).toEqual(['product.updated', 'order.fulfillment_updated', 'order.canceled']);
    expect(events[1].payload).toEqual({
      id,
      number: placed.body.number,
      fulfillmentStatus: 'canceled',
      previousFulfillmentStatus: 'unfulfilled',
      shipmentId: null,
    });
    expect(events[2].payload).toEqual({ id, number: placed.body.number, reason: 'expired' });

    // Once: the job again, the sweep, change nothing.
    expect(await expiry().run({ siteId: a.siteId, orderId: id })).toBe(false);
    await expiry().sweep();
    expect(await orders().findOneByOrFail({ id })).toEqual(row);
    expect(await stockOf(print.id)).toBe(3);
    expect((await eventsOf(ctx.t, a, before)).length).toBe(3);

    // The buyer sees it canceled; paying it is a 409 that changes nothing.
    const seen = await request(ctx.t.server)
      .get(ordersUrl(a, `/${id}`))
      .set(auth)
      .expect(200);
    expect(seen.body).toEqual(
      expect.objectContaining({ fulfillmentStatus: 'canceled', canceledAt: now.toISOString(), expiresAt: ISO }),
    );
    const paid = await a.api.patch(ordersUrl(a, `/${id}/payment`)).send({ paymentStatus: 'paid' });
    expectExactProblem(
      paid,
      409,
      'order_expired',
      'Conflict',
      `Order ${placed.body.number} expired unpaid at ${expiresAt.toISOString()}; place a new order`,
    );
    expect(await orders().findOneByOrFail({ id })).toEqual(row);
    expect((await eventsOf(ctx.t, a, before)).length).toBe(3);

    // The operator's order now gets the stock.
    const operator = await makeOrder(a, [[print.id, 3]]);
    expect(await stockOf(print.id)).toBe(0);
    expect(operator.userId).toBeNull();
  });

  it('the sweep cancels an expired order whose job was lost, and only the expired ones', async () => {
    const mug = await makeProduct(a, { quantityAvailable: 10 });
    const { auth } = await signedIn(a);
    const lost = (await sessionOrder(a, auth, [[mug.id, 2]]).expect(201)).body;
    await ctx.t.db.query(`DELETE FROM pgboss.job WHERE name = $1 AND data->>'orderId' = $2`, [
      ORDER_EXPIRY_JOB,
      String(lost.id),
    ]);
    expect(await jobsOf(lost.id)).toEqual([]);
    // A longer hold, placed now: not yet expired when the clock is moved 31 minutes.
    await a.api
      .patch(siteUrl(a))
      .send({ settings: { orders: { sessionHoldMinutes: 60 } } })
      .expect(200);
    const later = (await sessionOrder(a, auth, [[mug.id, 3]]).expect(201)).body;
    const keyOrder = await makeOrder(a, [[mug.id, 1]]);
    expect(await stockOf(mug.id)).toBe(4);

    const before = await lastEventId(ctx.t);
    moveClock(31 * MINUTE);
    expect(await expiry().sweep()).toBeGreaterThanOrEqual(1);
    expect((await orders().findOneByOrFail({ id: lost.id })).fulfillmentStatus).toBe('canceled');
    for (const open of [later.id, keyOrder.id])
      expect((await orders().findOneByOrFail({ id: open })).fulfillmentStatus).toBe('unfulfilled');
    expect(await stockOf(mug.id)).toBe(6);
    expect((await eventsOf(ctx.t, a, before)).filter((e) => e.name === 'order.canceled')).toEqual([
      { name: 'order.canceled', payload: { id: lost.id, number: lost.number, reason: 'expired' } },
    ]);
    await a.api
      .patch(siteUrl(a))
      .send({ settings: { orders: { sessionHoldMinutes: null } } })
      .expect(200);
  });

  it('past its hold, an order not yet canceled cannot be paid either; one paid in time never expires', async () => {
    const mug = await makeProduct(a, { quantityAvailable: 5 });
    const { auth } = await signedIn(a);
    const late = (await sessionOrder(a, auth, [[mug.id, 1]]).expect(201)).body;
    const onTime = (await sessionOrder(a, auth, [[mug.id, 1]]).expect(201)).body;

    // Paid a minute before its hold ends: no expiry any more.
    moveClock(29 * MINUTE);
    const paid = await a.api
      .patch(ordersUrl(a, `/${onTime.id}/payment`))
      .send({ paymentStatus: 'paid' })
      .expect(200);
    expect(paid.body).toEqual(expect.objectContaining({ paymentStatus: 'paid', paidAt: ISO, expiresAt: null }));

    moveClock(31 * MINUTE);
    const before = await lastEventId(ctx.t);
    const row = await orders().findOneByOrFail({ id: late.id });
    expectProblem(
      await a.api
        .patch(ordersUrl(a, `/${late.id}/payment`))
        .send({ paymentStatus: 'paid', processorPaymentId: 'pi_9' }),
      409,
      'order_expired',
    );
    expect(await orders().findOneByOrFail({ id: late.id })).toEqual(row);
    expect(await eventsOf(ctx.t, a, before)).toEqual([]);

    expect(await expiry().run({ siteId: a.siteId, orderId: onTime.id })).toBe(false);
    expect(await expiry().run({ siteId: a.siteId, orderId: late.id })).toBe(true);
    expect((await orders().findOneByOrFail({ id: onTime.id })).fulfillmentStatus).toBe('unfulfilled');
    expect(await stockOf(mug.id)).toBe(4);
  });

  it('a shipment ends the hold: an order shipped in part before payment is never canceled by its expiry', async () => {
    const mug = await makeProduct(a, { quantityAvailable: 5 });
    const { auth } = await signedIn(a);
    const placed = (await sessionOrder(a, auth, [[mug.id, 3]]).expect(201)).body;
    const shipped = await a.api
      .patch(ordersUrl(a, `/${placed.id}/fulfillment`))
      .send({
        shipment: { carrier: 'DHL', trackingNumber: 'JD0001', lines: [{ lineId: placed.lines[0].id, quantity: 1 }] },
      })
      .expect(200);
    expect(shipped.body).toEqual(
      expect.objectContaining({ fulfillmentStatus: 'partially_fulfilled', expiresAt: null }),
    );

    moveClock(31 * MINUTE);
    expect(await expiry().run({ siteId: a.siteId, orderId: placed.id })).toBe(false);
    expect(await expiry().sweep()).toBe(0);
    const row = await orders().findOneByOrFail({ id: placed.id });
    expect(row).toEqual(expect.objectContaining({ fulfillmentStatus: 'partially_fulfilled', canceledAt: null }));
    expect(await stockOf(mug.id)).toBe(2);
    // Still payable: the site has it in hand.
    await a.api
      .patch(ordersUrl(a, `/${placed.id}/payment`))
      .send({ paymentStatus: 'paid' })
      .expect(200);
  });

  it('a key’s order holds for keyHoldMinutes; null: it never expires, and no job is queued', async () => {
    const x = b;
    const mug = await makeProduct(x, { quantityAvailable: 4 });
    const set = await x.api
      .patch(siteUrl(x))
      .send({ settings: { orders: { keyHoldMinutes: 60 } } })
      .expect(200);
    expect(set.body.settings.orders).toEqual({
      taxRates: {},
      defaultTaxRate: null,
      sessionHoldMinutes: 30,
      keyHoldMinutes: 60,
      maxPendingPerUser: 5,
      maxHeldPerProduct: 10,
      maxHeldPerUser: 50,
      holdCooldownMinutes: 10,
    });
    const hour = await makeOrder(x, [[mug.id, 1]]);
    expect(
      Math.abs(Date.parse(hour.expiresAt as string) - Date.parse(hour.createdAt as string) - 60 * MINUTE),
    ).toBeLessThan(5000);
    expect(await jobsOf(hour.id)).toEqual([new Date(hour.expiresAt as string)]);

    const never = await x.api
      .patch(siteUrl(x))
      .send({ settings: { orders: { keyHoldMinutes: null } } })
      .expect(200);
    expect(never.body.settings.orders.keyHoldMinutes).toBeNull();
    // Stored as a value: null here means "until paid or canceled", not "the default".
    expect((await ctx.t.db.getRepository(SiteEntity).findOneByOrFail({ id: x.siteId })).settings.orders).toEqual({
      keyHoldMinutes: null,
    });
    const kept = await makeOrder(x, [[mug.id, 3]]);
    expect(kept.expiresAt).toBeNull();
    expect(await jobsOf(kept.id)).toEqual([]);
    expect(await stockOf(mug.id)).toBe(0);

    // A week and a day later: the hour's order is canceled, the other still holds its stock.
    moveClock(8 * 1440 * MINUTE);
    await expiry().sweep();
    expect(await expiry().run({ siteId: x.siteId, orderId: kept.id })).toBe(false);
    expect((await orders().findOneByOrFail({ id: hour.id })).fulfillmentStatus).toBe('canceled');
    expect(await orders().findOneByOrFail({ id: kept.id })).toEqual(
      expect.objectContaining({ fulfillmentStatus: 'unfulfilled', expiresAt: null, canceledAt: null }),
    );
    expect(await stockOf(mug.id)).toBe(1);
    // It can still be paid.
    await x.api
      .patch(ordersUrl(x, `/${kept.id}/payment`))
      .send({ paymentStatus: 'paid' })
      .expect(200);

    // The default again: send it.
    const back = await x.api
      .patch(siteUrl(x))
      .send({ settings: { orders: { keyHoldMinutes: 1440 } } })
      .expect(200);
    expect(back.body.settings.orders.keyHoldMinutes).toBe(1440);
  });

  it('refuses bad hold settings with a 400 naming the field, and changes nothing', async () => {
    const x = b;
    await expectSettingsRefused(ctx.t, x, 'orders', [
      { sessionHoldMinutes: 0 },
      { sessionHoldMinutes: 10_081 },
      { sessionHoldMinutes: 1.5 },
      { sessionHoldMinutes: '30' },
      { keyHoldMinutes: 0 },
      { keyHoldMinutes: 10_081 },
      { keyHoldMinutes: -5 },
      { maxPendingPerUser: 0 },
      { maxPendingPerUser: 101 },
      { maxPendingPerUser: true },
    ]);
    // The bounds themselves are accepted.
    const edges = await x.api
      .patch(siteUrl(x))
      .send({ settings: { orders: { sessionHoldMinutes: 10_080, keyHoldMinutes: 1, maxPendingPerUser: 100 } } })
      .expect(200);
    expect(edges.body.settings.orders).toEqual(
      expect.objectContaining({ sessionHoldMinutes: 10_080, keyHoldMinutes: 1, maxPendingPerUser: 100 }),
    );
    await x.api
      .patch(siteUrl(x))
      .send({ settings: { orders: { sessionHoldMinutes: null, keyHoldMinutes: 1440, maxPendingPerUser: null } } })
      .expect(200);
  });

  describe('the cap of pending orders per site user', () => {
    it('the 6th pending session order is a 409 too_many_pending_orders and takes no stock; a key is not capped', async () => {
      const mug = await makeProduct(a, { name: 'Capped mug', quantityAvailable: 20 });
      const { auth, userId } = await signedIn(a);
      const placed: number[] = [];
      for (let i = 0; i < 5; i++) placed.push((await sessionOrder(a, auth, [[mug.id, 1]]).expect(201)).body.id);
      expect(await stockOf(mug.id)).toBe(15);

      const before = await lastEventId(ctx.t);
      const count = await orders().countBy({ siteId: a.siteId });
      const sixth = await sessionOrder(a, auth, [[mug.id, 1]]);
      expectExactProblem(
        sixth,
        409,
        'too_many_pending_orders',
        'Conflict',
        'You have 5 unpaid orders; pay or cancel one before placing another (at most 5)',
      );
      expect(await stockOf(mug.id)).toBe(15);
      expect(await orders().countBy({ siteId: a.siteId })).toBe(count);
      expect(await eventsOf(ctx.t, a, before)).toEqual([]);

      // The site's key places orders for the same customer without a cap.
      const email = (await ctx.t.db.getRepository(SiteUserEntity).findOneByOrFail({ id: userId })).email;
      for (let i = 0; i < 6; i++) await makeOrder(a, [[mug.id, 1]], { customer: { email } });

      // Paying one, canceling another frees two places.
      await a.api
        .patch(ordersUrl(a, `/${placed[0]}/payment`))
        .send({ paymentStatus: 'paid' })
        .expect(200);
      await a.api
        .patch(ordersUrl(a, `/${placed[1]}/fulfillment`))
        .send({ status: 'canceled' })
        .expect(200);
      await sessionOrder(a, auth, [[mug.id, 1]]).expect(201);
      await sessionOrder(a, auth, [[mug.id, 1]]).expect(201);
      expectProblem(await sessionOrder(a, auth, [[mug.id, 1]]), 409, 'too_many_pending_orders');

      // Orders past their hold no longer count, even before the expiry cancels them (another
      // product: the mug waits its cool-down, test/orders/hold-limits.e2e-spec.ts).
      const cup = await makeProduct(a, { name: 'Cup', quantityAvailable: 1 });
      moveClock(31 * MINUTE);
      await sessionOrder(a, auth, [[cup.id, 1]]).expect(201);
    });

    it('holds under concurrency: 8 orders at once with a cap of 3 make exactly 3', async () => {
      await b.api
        .patch(siteUrl(b))
        .send({ settings: { orders: { maxPendingPerUser: 3 } } })
        .expect(200);
      const mug = await makeProduct(b, { quantityAvailable: 50 });
      const { auth, userId } = await signedIn(b);
      const results = await Promise.all(Array.from({ length: 8 }, () => sessionOrder(b, auth, [[mug.id, 2]])));
      expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 409, 409, 409, 409, 409]);
      for (const r of results.filter((x) => x.status === 409)) expectProblem(r, 409, 'too_many_pending_orders');
      expect(await orders().countBy({ siteId: b.siteId, userId })).toBe(3);
      expect(await stockOf(mug.id)).toBe(44);
      await b.api
        .patch(siteUrl(b))
        .send({ settings: { orders: { maxPendingPerUser: null } } })
        .expect(200);
    });
  });
});
