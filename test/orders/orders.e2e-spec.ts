import request from 'supertest';
import { ProductEntity } from '../../src/catalog/entities/product.entity';
import { ProductVariantEntity } from '../../src/catalog/entities/product-variant.entity';
import { EmailMessageEntity } from '../../src/email/entities/email-message.entity';
import { OrderLineEntity } from '../../src/orders/entities/order-line.entity';
import { OrderShipmentEntity } from '../../src/orders/entities/order-shipment.entity';
import { OrderEntity } from '../../src/orders/entities/order.entity';
import { eventually } from '../support/app';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { Tenant, withTenants } from '../support/tenant';
import { customer, makeOrder, makeProduct, makeVariant, Made, orderBody, ordersUrl } from './orders-fixtures';

describe('/api/v2/sites/:siteName/orders', () => {
  const ctx = withTenants(2, { env: { CATALOG_CACHE_TTL_MS: '0' } });
  let a: Tenant;
  let b: Tenant;
  const orders = () => ctx.t.db.getRepository(OrderEntity);
  const lineRows = () => ctx.t.db.getRepository(OrderLineEntity);
  const stockOf = async (id: number) =>
    (await ctx.t.db.getRepository(ProductEntity).findOneByOrFail({ id })).quantityAvailable;

  beforeAll(() => {
    [a, b] = ctx.tenants;
  });

  describe('POST / (create)', () => {
    it('creates an order: 201, Location, the exact body, its rows, stock taken, the mail queued, the events', async () => {
      const mug = await makeProduct(a, { name: 'Stoneware mug', quantityAvailable: 5, taxCode: 'standard' });
      const tee = await makeProduct(a, { name: 'Tee', unitAmount: 2000, option1: 'Size' });
      const teeM = await makeVariant(a, tee.id, { option1Value: 'M', sku: 'TEE-M', unitAmount: 2200 });
      const after = await lastEventId(ctx.t);
      const res = await a.api
        .post(ordersUrl(a))
        .send({
          lines: [
            { productId: mug.id, quantity: 2 },
            { productId: tee.id, variantId: teeM.id, quantity: 1 },
          ],
          customer: { email: 'Ada@Example.COM', name: 'Ada Lovelace', phone: '+44 20 7946 0000' },
          shippingAddress: { line1: '12 Harbour Street', city: 'Bristol', postalCode: 'BS1 4DJ', country: 'GB' },
          metadata: { cartId: 'c_1' },
        })
        .expect(201);
      const id = res.body.id as number;
      const held = Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt);
      expect(Math.abs(held - 1440 * 60_000)).toBeLessThan(5000);
      expect(res.headers.location).toBe(
        `${ctx.t.configs.server.PUBLIC_BASE_URL}/api/v2/sites/${a.siteName}/orders/${id}`,
      );
      expect(res.body).toEqual({
        id: expect.any(Number),
        number: 1,
        userId: null,
        paymentStatus: 'pending',
        fulfillmentStatus: 'unfulfilled',
        processorPaymentId: null,
        paymentProcessor: 'manual',
        paymentMode: null,
        currency: 'EUR',
        subtotalAmount: 4200,
        taxAmount: 0,
        totalAmount: 4200,
        customer: { email: 'ada@example.com', name: 'Ada Lovelace', phone: '+44 20 7946 0000' },
        shippingAddress: {
          name: null,
          line1: '12 Harbour Street',
          line2: null,
          city: 'Bristol',
          region: null,
          postalCode: 'BS1 4DJ',
          country: 'GB',
          phone: null,
        },
        metadata: { cartId: 'c_1' },
        createdAt: ISO,
        updatedAt: ISO,
        paidAt: null,
        refundedAt: null,
        canceledAt: null,
        // A key's order holds its stock for the site's keyHoldMinutes: 1440 by default.
        expiresAt: ISO,
        anonymisedAt: null,
        lines: [
          {
            id: expect.any(Number),
            productId: mug.id,
            variantId: null,
            name: 'Stoneware mug',
            sku: null,
            unitAmount: 1000,
            quantity: 2,
            subtotalAmount: 2000,
            taxCode: 'standard',
            taxBehavior: 'unspecified',
            taxRate: 0,
            taxAmount: 0,
            totalAmount: 2000,
            recurring: null,
            fulfilledQuantity: 0,
          },
          {
            id: expect.any(Number),
            productId: tee.id,
            variantId: teeM.id,
            name: 'Tee (M)',
            sku: 'TEE-M',
            unitAmount: 2200,
            quantity: 1,
            subtotalAmount: 2200,
            taxCode: null,
            taxBehavior: 'unspecified',
            taxRate: 0,
            taxAmount: 0,
            totalAmount: 2200,
            recurring: null,
            fulfilledQuantity: 0,
          },
        ],
        shipments: [],
      });
      expect(await orders().findOneByOrFail({ id })).toEqual(
        expect.objectContaining({
          siteId: a.siteId,
          accountId: a.accountId,
          number: 1,
          customerEmail: 'ada@example.com',
          totalAmount: 4200,
          metadata: { cartId: 'c_1' },
          expiresAt: new Date(res.body.expiresAt),
        }),
      );
      expect(await lineRows().countBy({ orderId: id })).toBe(2);
      expect(await stockOf(mug.id)).toBe(3);
      const mail = await ctx.t.db
        .getRepository(EmailMessageEntity)
        .findOneByOrFail({ siteId: a.siteId, templateType: 'orders.confirmation' });
      expect(mail).toEqual(expect.objectContaining({ recipient: 'ada@example.com', status: 'queued' }));
      const events = await eventsOf(ctx.t, a, after);
      expect(events.filter((e) => e.name.startsWith('order.'))).toEqual([
        {
          name: 'order.created',
          payload: {
            id,
            number: 1,
            currency: 'EUR',
            totalAmount: 4200,
            paymentStatus: 'pending',
            fulfillmentStatus: 'unfulfilled',
          },
        },
      ]);
      // The stock taken changed the mug (limited stock): product.updated with its new version.
      expect(events.filter((e) => e.name === 'product.updated').map((e) => e.payload.id)).toContain(mug.id);

      const got = await a.api.get(ordersUrl(a, `/${id}`)).expect(200);
      expect(got.body).toEqual(res.body);
      // Numbers go on per site.
      expect((await makeOrder(a, [[mug.id, 1]])).number).toBe(2);
      expect((await makeOrder(b, [[(await makeProduct(b)).id, 1]])).number).toBe(1);
    });

    it('keeps a snapshot of each line: catalog edits never rewrite the order', async () => {
      const p = await makeProduct(a, { name: 'Poster', unitAmount: 1500 });
      const order = await makeOrder(a, [[p.id, 1]]);
      await a.api
        .patch(`/api/v2/sites/${a.siteName}/products/${p.id}`)
        .send({ name: 'Renamed', unitAmount: 9999 })
        .expect(200);
      await a.api.delete(`/api/v2/sites/${a.siteName}/products/${p.id}`).expect(204);
      const got = await a.api.get(ordersUrl(a, `/${order.id}`)).expect(200);
      expect(got.body.lines[0]).toEqual(expect.objectContaining({ productId: p.id, name: 'Poster', unitAmount: 1500 }));
      expect(got.body.totalAmount).toBe(1500);
    });

    it('refuses a client-set price as an unknown field and never uses it', async () => {
      const p = await makeProduct(a, { unitAmount: 1000, quantityAvailable: 3 });
      const before = await orders().countBy({ siteId: a.siteId });
      for (const [line, path] of [
        [{ productId: p.id, quantity: 1, unitAmount: 1 }, 'lines.0.unitAmount'],
        [{ productId: p.id, quantity: 1, price: 0.01 }, 'lines.0.price'],
      ] as const) {
        const res = await a.api.post(ordersUrl(a)).send({ lines: [line], customer });
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors).toEqual([{ path, message: 'is not allowed' }]);
      }
      for (const extra of [{ totalAmount: 1 }, { currency: 'USD' }, { subtotalAmount: 1 }]) {
        const res = await a.api.post(ordersUrl(a)).send({ ...orderBody([[p.id, 1]]), ...extra });
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors[0]).toEqual({ path: Object.keys(extra)[0], message: 'is not allowed' });
      }
      expect(await orders().countBy({ siteId: a.siteId })).toBe(before);
      expect(await stockOf(p.id)).toBe(3);
      // Without the price, the catalog's is used.
      expect((await makeOrder(a, [[p.id, 1]])).totalAmount).toBe(1000);
    });

    it('refuses bad input with 400 naming the field, and stores nothing', async () => {
      const p = await makeProduct(a, { quantityAvailable: 4 });
      const draft = await makeProduct(a, { status: 'draft' });
      const other = await makeProduct(b);
      const variantOfOther = await makeVariant(b, (await makeProduct(b, { option1: 'Size' })).id, {
        option1Value: 'S',
      });
      const before = await orders().countBy({ siteId: a.siteId });
      const after = await lastEventId(ctx.t);
      const good = orderBody([[p.id, 1]]);
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ customer }, 'lines'],
        [{ ...good, lines: [] }, 'lines'],
        [{ ...good, lines: [{ productId: p.id, quantity: 0 }] }, 'lines.0.quantity'],
        [{ ...good, lines: [{ productId: p.id, quantity: 10_001 }] }, 'lines.0.quantity'],
        [{ ...good, lines: [{ productId: p.id, quantity: 1.5 }] }, 'lines.0.quantity'],
        [{ ...good, lines: [{ productId: p.id }] }, 'lines.0.quantity'],
        [{ ...good, lines: [{ productId: '7', quantity: 1 }] }, 'lines.0.productId'],
        [{ ...good, lines: [{ productId: p.id, quantity: 1, variantId: null }] }, 'lines.0.variantId'],
        [{ ...good, lines: Array(101).fill({ productId: p.id, quantity: 1 }) }, 'lines'],
        [{ lines: good.lines }, 'customer'],
        [{ ...good, customer: { email: 'not an address' } }, 'customer.email'],
        [{ ...good, customer: { email: 'a@example.com', name: 'A\r\nBcc: x@example.com' } }, 'customer.name'],
        [{ ...good, customer: { email: 'a@example.com', phone: 'call me' } }, 'customer.phone'],
        [{ ...good, shippingAddress: { line1: 'x', city: 'y', country: 'XX' } }, 'shippingAddress.country'],
        [{ ...good, shippingAddress: { line1: 'x', city: 'y', country: 'gb' } }, 'shippingAddress.country'],
        [{ ...good, shippingAddress: { city: 'y', country: 'GB' } }, 'shippingAddress.line1'],
        [{ ...good, shippingAddress: null }, 'shippingAddress'],
        [{ ...good, metadata: { a: 1 } }, 'metadata'],
        [{ ...good, metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
        [{ ...good, metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata'],
        [{ ...good, metadata: { k: 'v'.repeat(501) } }, 'metadata'],
        [{ ...good, lines: [{ productId: 999_999_999, quantity: 1 }] }, 'lines.0.productId'],
        [{ ...good, lines: [{ productId: draft.id, quantity: 1 }] }, 'lines.0.productId'],
        [{ ...good, lines: [{ productId: other.id, quantity: 1 }] }, 'lines.0.productId'],
        [{ ...good, lines: [{ productId: p.id, quantity: 1, variantId: variantOfOther.id }] }, 'lines.0.variantId'],
      ];
      for (const [body, path] of cases) {
        const res = await a.api.post(ordersUrl(a)).send(body);
        expectProblem(res, 400, 'validation_failed');
        expect({ path, errors: res.body.errors.map((e: { path: string }) => e.path) }).toEqual({
          path,
          errors: expect.arrayContaining([path]),
        });
      }
      expect(await orders().countBy({ siteId: a.siteId })).toBe(before);
      expect(await stockOf(p.id)).toBe(4);
      expect(await eventsOf(ctx.t, a, after)).toEqual([]);
    });

    it('one currency per order: a line in another is a 400 naming it, and takes no stock', async () => {
      const eur = await makeProduct(a, { quantityAvailable: 2 });
      const usd = await makeProduct(a, { currency: 'USD', quantityAvailable: 2 });
      const res = await a.api.post(ordersUrl(a)).send(
        orderBody([
          [eur.id, 1],
          [usd.id, 1],
        ]),
      );
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([
        {
          path: 'lines.1.productId',
          message: 'is priced in USD, but the order is in EUR (the currency of line 0): one currency per order',
        },
      ]);
      expect([await stockOf(eur.id), await stockOf(usd.id)]).toEqual([2, 2]);
    });

    it('taxes lines by the site’s rates: exclusive adds, inclusive contains, unspecified has none', async () => {
      const x = ctx.tenants[1];
      await x.api
        .patch(`/api/v2/sites/${x.siteName}`)
        .send({ settings: { orders: { taxRates: { standard: 2000, food: 550 }, defaultTaxRate: 1000 } } })
        .expect(200);
      const exclusive = await makeProduct(x, { unitAmount: 1999, taxCode: 'standard', taxBehavior: 'exclusive' });
      const inclusive = await makeProduct(x, { unitAmount: 999, taxCode: 'food', taxBehavior: 'inclusive' });
      const byDefault = await makeProduct(x, { unitAmount: 15, taxCode: 'books', taxBehavior: 'exclusive' });
      const untaxed = await makeProduct(x, { unitAmount: 500, taxCode: 'standard', taxBehavior: 'unspecified' });
      const order = await makeOrder(x, [
        [exclusive.id, 3],
        [inclusive.id, 2],
        [byDefault.id, 1],
        [untaxed.id, 1],
      ]);
      const amounts = (order.lines as Array<Record<string, unknown>>).map((l) => [
        l.subtotalAmount,
        l.taxRate,
        l.taxAmount,
        l.totalAmount,
      ]);
      expect(amounts).toEqual([
        // 5997 × 20 % = 1199.4 -> 1199, added
        [5997, 2000, 1199, 7196],
        // 1998 - 1998 / 1.055 = 104.17 -> 104, contained
        [1998, 550, 104, 1998],
        // 15 × 10 % = 1.5 -> 2 (half up), the default rate
        [15, 1000, 2, 17],
        [500, 0, 0, 500],
      ]);
      expect([order.subtotalAmount, order.taxAmount, order.totalAmount]).toEqual([8510, 1305, 9711]);
      const row = await orders().findOneByOrFail({ id: order.id });
      expect([row.subtotalAmount, row.taxAmount, row.totalAmount]).toEqual([8510, 1305, 9711]);
    });

    it('an Idempotency-Key replays the first answer: one order, stock taken once', async () => {
      const p = await makeProduct(a, { quantityAvailable: 5 });
      const body = orderBody([[p.id, 2]]);
      const first = await a.api.post(ordersUrl(a)).set('Idempotency-Key', `order-${p.id}`).send(body).expect(201);
      const again = await a.api.post(ordersUrl(a)).set('Idempotency-Key', `order-${p.id}`).send(body).expect(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.headers.location).toBe(first.headers.location);
      expect(await orders().countBy({ siteId: a.siteId, totalAmount: 2000, id: first.body.id })).toBe(1);
      expect(await lineRows().countBy({ productId: p.id })).toBe(1);
      expect(await stockOf(p.id)).toBe(3);
      const other = await a.api
        .post(ordersUrl(a))
        .set('Idempotency-Key', `order-${p.id}`)
        .send(orderBody([[p.id, 1]]));
      expectProblem(other, 409, 'idempotency_key_reused');
      expect(await stockOf(p.id)).toBe(3);
    });

    it('100 concurrent orders for 10 units sell exactly 10; the others are a 409 out_of_stock naming the item', async () => {
      const x = ctx.tenants[1];
      const p = await makeProduct(x, { name: 'Limited print', quantityAvailable: 10 });
      const before = await orders().countBy({ siteId: x.siteId });
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          x.api
            .post(ordersUrl(x))
            .send({ lines: [{ productId: p.id, quantity: 1 }], customer: { email: `c${i}@example.com` } }),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(10);
      expect(statuses.filter((s) => s === 409)).toHaveLength(90);
      for (const r of results.filter((res) => res.status === 409)) {
        expectProblem(r, 409, 'out_of_stock');
        expect(r.body.detail).toBe('Not enough stock of Limited print for 1');
      }
      expect(await stockOf(p.id)).toBe(0);
      const sold = await lineRows().findBy({ productId: p.id });
      expect(sold.reduce((n, l) => n + l.quantity, 0)).toBe(10);
      expect(await orders().countBy({ siteId: x.siteId })).toBe(before + 10);
      // Numbers stay sequential: the 90 refused orders left no gap.
      const numbers = results.filter((r) => r.status === 201).map((r) => r.body.number as number);
      expect([...numbers].sort((m, n) => m - n)).toEqual(Array.from({ length: 10 }, (_, i) => before + i + 1));
    });

    it('a variant’s own stock is taken', async () => {
      const p = await makeProduct(a, { option1: 'Size', quantityAvailable: 100 });
      const v = await makeVariant(a, p.id, { option1Value: 'L', quantityAvailable: 1 });
      await a.api
        .post(ordersUrl(a))
        .send({ lines: [{ productId: p.id, variantId: v.id, quantity: 1 }], customer })
        .expect(201);
      const res = await a.api
        .post(ordersUrl(a))
        .send({ lines: [{ productId: p.id, variantId: v.id, quantity: 1 }], customer });
      expectProblem(res, 409, 'out_of_stock');
      expect((await ctx.t.db.getRepository(ProductVariantEntity).findOneByOrFail({ id: v.id })).quantityAvailable).toBe(
        0,
      );
      expect(await stockOf(p.id)).toBe(100);
    });
  });

  describe('auth and tenancy', () => {
    it('no key is a 401 on every key route; another site’s order is a 404', async () => {
      const p = await makeProduct(a);
      const order = await makeOrder(a, [[p.id, 1]]);
      const anon = request(ctx.t.server);
      for (const res of [
        await anon.get(ordersUrl(a)),
        await anon.post(ordersUrl(a)).send(orderBody([[p.id, 1]])),
        await anon.get(ordersUrl(a, `/${order.id}`)),
        await anon.patch(ordersUrl(a, `/${order.id}/fulfillment`)).send({ status: 'canceled' }),
        await anon.patch(ordersUrl(a, `/${order.id}/payment`)).send({ paymentStatus: 'paid' }),
        await anon.post(ordersUrl(a, '/fulfillment-secret')),
      ])
        expectProblem(res, 401, 'missing_credential');
      // b's key on a's site: the site is out of reach.
      expectProblem(await b.api.get(ordersUrl(a, `/${order.id}`)), 404, 'site_not_found');
      // a's order under b's site: not found, and nothing changes.
      expectProblem(await b.api.get(ordersUrl(b, `/${order.id}`)), 404, 'not_found');
      expectProblem(
        await b.api.patch(ordersUrl(b, `/${order.id}/fulfillment`)).send({ status: 'canceled' }),
        404,
        'not_found',
      );
      expectProblem(
        await b.api.patch(ordersUrl(b, `/${order.id}/payment`)).send({ paymentStatus: 'paid' }),
        404,
        'not_found',
      );
      expect(await orders().findOneByOrFail({ id: order.id })).toEqual(
        expect.objectContaining({ paymentStatus: 'pending', fulfillmentStatus: 'unfulfilled' }),
      );
      const list = await b.api.get(ordersUrl(b, '?limit=100')).expect(200);
      expect(list.body.data.map((o: Made) => o.id)).not.toContain(order.id);
      expectProblem(await a.api.get(ordersUrl(a, '/0x1')), 400, 'validation_failed');
    });
  });

  describe('GET / (list)', () => {
    it('lists newest first with keyset pages, filtered by status, email (any case) and creation time', async () => {
      const x = ctx.tenants[0];
      const p = await makeProduct(x);
      const url = (q: string) => ordersUrl(x, `?${q}`);
      const mark = new Date().toISOString();
      const made: Made[] = [];
      for (const email of ['grace@example.com', 'Grace@Example.com', 'alan@example.com'])
        made.push(await makeOrder(x, [[p.id, 1]], { customer: { email } }));
      await x.api
        .patch(ordersUrl(x, `/${made[0].id}/payment`))
        .send({ paymentStatus: 'paid' })
        .expect(200);
      await x.api
        .patch(ordersUrl(x, `/${made[1].id}/fulfillment`))
        .send({ status: 'canceled' })
        .expect(200);

      const first = await x.api.get(url(`limit=2&from=${mark}`)).expect(200);
      expect(first.body.data.map((o: Made) => o.id)).toEqual([made[2].id, made[1].id]);
      expect(first.body.pagination).toEqual({ limit: 2, nextCursor: expect.any(String) });
      expect(first.body.data[0]).not.toHaveProperty('lines');
      const second = await x.api
        .get(url(`limit=2&from=${mark}&cursor=${first.body.pagination.nextCursor}`))
        .expect(200);
      expect(second.body).toEqual({
        data: [expect.objectContaining({ id: made[0].id })],
        pagination: { limit: 2, nextCursor: null },
      });
      const ids = async (q: string) =>
        (await x.api.get(url(`${q}&from=${mark}`)).expect(200)).body.data.map((o: Made) => o.id);
      expect(await ids('email=GRACE@example.COM')).toEqual([made[1].id, made[0].id]);
      expect(await ids('paymentStatus=paid')).toEqual([made[0].id]);
      expect(await ids('paymentStatus=pending')).toEqual([made[2].id, made[1].id]);
      expect(await ids('fulfillmentStatus=canceled')).toEqual([made[1].id]);
      expect(await ids('fulfillmentStatus=unfulfilled&email=grace@example.com')).toEqual([made[0].id]);
      expect(await ids(`to=${mark}`)).toEqual([]);
      const created = (await orders().findOneByOrFail({ id: made[1].id })).createdAt.toISOString();
      expect(await ids(`to=${created}`)).toEqual([made[0].id]);
      for (const [q, path] of [
        ['paymentStatus=due', 'paymentStatus'],
        ['fulfillmentStatus=shipped', 'fulfillmentStatus'],
        ['email=nobody', 'email'],
        ['from=yesterday', 'from'],
        ['to=2024-01-01', 'to'],
        ['limit=101', 'limit'],
        ['status=paid', 'status'],
      ]) {
        const res = await x.api.get(url(q));
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
      }
      expectProblem(await x.api.get(url('cursor=forged')), 400, 'invalid_cursor');
    });
  });

  describe('PATCH /{id}/payment (admin)', () => {
    it('pending -> paid -> refunded, with their events; other moves are a 409 with the row unchanged', async () => {
      const plan = await makeProduct(a, {
        name: 'Monthly box',
        unitAmount: 2500,
        recurring: { interval: 'month', intervalCount: 1 },
      });
      const mug = await makeProduct(a);
      const order = await makeOrder(a, [
        [mug.id, 1],
        [plan.id, 2],
      ]);
      const url = ordersUrl(a, `/${order.id}/payment`);
      expectProblem(await a.api.patch(url).send({ paymentStatus: 'refunded' }), 409, 'transition_forbidden');
      const after = await lastEventId(ctx.t);
      const paid = await a.api.patch(url).send({ paymentStatus: 'paid', processorPaymentId: 'pi_123' }).expect(200);
      expect(paid.body).toEqual(
        expect.objectContaining({
          paymentStatus: 'paid',
          processorPaymentId: 'pi_123',
          paidAt: ISO,
          // Paid: the order no longer expires.
          expiresAt: null,
          lines: expect.any(Array),
        }),
      );
      const planLine = order.lines[1];
      // The subscription the recurring line asks for starts in the background (user.* events):
      // only the order's own events are compared, and it is awaited before the next mark.
      const ofOrder = async (from: number) =>
        (await eventsOf(ctx.t, a, from)).filter((e) => e.name.startsWith('order.'));
      expect(await ofOrder(after)).toEqual([
        {
          name: 'order.paid',
          payload: {
            id: order.id,
            number: order.number,
            currency: 'EUR',
            totalAmount: 6000,
            processorPaymentId: 'pi_123',
          },
        },
        {
          name: 'order.subscription_requested',
          payload: {
            orderId: order.id,
            orderNumber: order.number,
            userId: null,
            lineId: planLine.id,
            productId: plan.id,
            variantId: null,
            quantity: 2,
            interval: 'month',
            intervalCount: 1,
            unitAmount: 2500,
            currency: 'EUR',
          },
        },
      ]);
      await eventually(async () =>
        (
          await ctx.t.db.query('SELECT 1 FROM user_subscriptions WHERE site_id = $1 AND product_id = $2', [
            a.siteId,
            plan.id,
          ])
        ).length
          ? true
          : undefined,
      );
      const row = await orders().findOneByOrFail({ id: order.id });
      for (const status of ['pending', 'paid']) {
        const res = await a.api.patch(url).send({ paymentStatus: status });
        expectProblem(res, 409, 'transition_forbidden');
      }
      expect(await orders().findOneByOrFail({ id: order.id })).toEqual(row);
      const mark = await lastEventId(ctx.t);
      const refunded = await a.api.patch(url).send({ paymentStatus: 'refunded' }).expect(200);
      expect(refunded.body).toEqual(
        expect.objectContaining({ paymentStatus: 'refunded', refundedAt: ISO, paidAt: paid.body.paidAt }),
      );
      expect((await eventsOf(ctx.t, a, mark)).map((e) => e.name)).toEqual(['order.refunded']);
      expectProblem(await a.api.patch(url).send({ paymentStatus: 'paid' }), 409, 'transition_forbidden');
      for (const [body, path] of [
        [{ paymentStatus: 'settled' }, 'paymentStatus'],
        [{}, 'paymentStatus'],
        [{ paymentStatus: 'paid', processorPaymentId: 7 }, 'processorPaymentId'],
      ] as const) {
        const res = await a.api.patch(url).send(body);
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
      }
    });
  });

  describe('PATCH /{id}/fulfillment', () => {
    it('shipments move unfulfilled -> partially_fulfilled -> fulfilled, recorded with their lines and events', async () => {
      const mug = await makeProduct(a, { quantityAvailable: 10 });
      const tee = await makeProduct(a, { name: 'Tee' });
      const order = await makeOrder(a, [
        [mug.id, 3],
        [tee.id, 1],
      ]);
      const [mugLine, teeLine] = order.lines;
      const url = ordersUrl(a, `/${order.id}/fulfillment`);
      const after = await lastEventId(ctx.t);
      const first = await a.api
        .patch(url)
        .send({
          shipment: {
            carrier: 'DHL',
            trackingNumber: 'JD01',
            trackingUrl: 'https://tracking.example/JD01',
            lines: [{ lineId: mugLine.id, quantity: 2 }],
          },
        })
        .expect(200);
      expect(first.body.fulfillmentStatus).toBe('partially_fulfilled');
      expect(first.body.lines.map((l: Made) => l.fulfilledQuantity)).toEqual([2, 0]);
      expect(first.body.shipments).toEqual([
        {
          id: expect.any(Number),
          carrier: 'DHL',
          trackingNumber: 'JD01',
          trackingUrl: 'https://tracking.example/JD01',
          lines: [{ lineId: mugLine.id, quantity: 2 }],
          notificationId: null,
          createdAt: ISO,
        },
      ]);
      const shipmentId = first.body.shipments[0].id as number;
      expect(await eventsOf(ctx.t, a, after)).toEqual([
        {
          name: 'order.fulfillment_updated',
          payload: {
            id: order.id,
            number: order.number,
            fulfillmentStatus: 'partially_fulfilled',
            previousFulfillmentStatus: 'unfulfilled',
            shipmentId,
          },
        },
      ]);
      expect(
        await ctx.t.db
          .getRepository(EmailMessageEntity)
          .countBy({ siteId: a.siteId, templateType: 'orders.shipped', recipient: 'ada@example.com' }),
      ).toBeGreaterThanOrEqual(1);

      // More than is left of a line: 409, nothing changes.
      const before = await ctx.t.db.getRepository(OrderShipmentEntity).countBy({ orderId: order.id });
      const over = await a.api
        .patch(url)
        .send({ shipment: { carrier: 'DHL', trackingNumber: 'JD02', lines: [{ lineId: mugLine.id, quantity: 2 }] } });
      expectProblem(over, 409, 'quantity_exceeds_order');
      expect(await ctx.t.db.getRepository(OrderShipmentEntity).countBy({ orderId: order.id })).toBe(before);
      expect((await lineRows().findOneByOrFail({ id: mugLine.id })).fulfilledQuantity).toBe(2);

      // The rest: a shipment without lines ships what is left.
      const second = await a.api
        .patch(url)
        .send({ shipment: { carrier: 'UPS', trackingNumber: '1Z9' } })
        .expect(200);
      expect(second.body.fulfillmentStatus).toBe('fulfilled');
      expect(second.body.shipments[1].lines).toEqual([
        { lineId: mugLine.id, quantity: 1 },
        { lineId: teeLine.id, quantity: 1 },
      ]);
      expect(second.body.lines.map((l: Made) => l.fulfilledQuantity)).toEqual([3, 1]);

      // A fulfilled order ships nothing and cannot be canceled.
      const row = await orders().findOneByOrFail({ id: order.id });
      for (const body of [
        { status: 'canceled' },
        { shipment: { carrier: 'DHL', trackingNumber: 'X' } },
        { status: 'fulfilled' },
      ])
        expectProblem(await a.api.patch(url).send(body), 409, 'transition_forbidden');
      expect(await orders().findOneByOrFail({ id: order.id })).toEqual(row);
      expect(await stockOf(mug.id)).toBe(7);
    });

    it('canceling gives back the stock of what was not shipped; a canceled order ships nothing', async () => {
      const mug = await makeProduct(a, { quantityAvailable: 10 });
      const order = await makeOrder(a, [[mug.id, 4]]);
      const [line] = order.lines;
      const url = ordersUrl(a, `/${order.id}/fulfillment`);
      await a.api
        .patch(url)
        .send({ shipment: { carrier: 'DHL', trackingNumber: 'P1', lines: [{ lineId: line.id, quantity: 1 }] } })
        .expect(200);
      expect(await stockOf(mug.id)).toBe(6);
      const after = await lastEventId(ctx.t);
      const canceled = await a.api.patch(url).send({ status: 'canceled' }).expect(200);
      // The site's cancel ends the hold: the order no longer expires.
      expect(canceled.body).toEqual(
        expect.objectContaining({ fulfillmentStatus: 'canceled', canceledAt: ISO, expiresAt: null }),
      );
      expect(await stockOf(mug.id)).toBe(9);
      const events = await eventsOf(ctx.t, a, after);
      expect(events.map((e) => e.name)).toEqual(['product.updated', 'order.fulfillment_updated', 'order.canceled']);
      expect(events[2].payload).toEqual({ id: order.id, number: order.number, reason: 'canceled' });
      expect(events[1].payload).toEqual({
        id: order.id,
        number: order.number,
        fulfillmentStatus: 'canceled',
        previousFulfillmentStatus: 'partially_fulfilled',
        shipmentId: null,
      });
      const row = await orders().findOneByOrFail({ id: order.id });
      for (const body of [
        { status: 'canceled' },
        { status: 'fulfilled' },
        { shipment: { carrier: 'DHL', trackingNumber: 'P2', lines: [{ lineId: line.id, quantity: 1 }] } },
      ])
        expectProblem(await a.api.patch(url).send(body), 409, 'transition_forbidden');
      expect(await orders().findOneByOrFail({ id: order.id })).toEqual(row);
      expect(await stockOf(mug.id)).toBe(9);
    });

    it('status fulfilled fulfils the rest without a shipment', async () => {
      const download = await makeProduct(a, { name: 'E-book' });
      const order = await makeOrder(a, [[download.id, 2]]);
      const res = await a.api
        .patch(ordersUrl(a, `/${order.id}/fulfillment`))
        .send({ status: 'fulfilled' })
        .expect(200);
      expect([res.body.fulfillmentStatus, res.body.shipments, res.body.lines[0].fulfilledQuantity]).toEqual([
        'fulfilled',
        [],
        2,
      ]);
    });

    it('refuses a bad change with 400 naming the field, and changes nothing', async () => {
      const p = await makeProduct(a);
      const order = await makeOrder(a, [[p.id, 1]]);
      const [line] = order.lines;
      const url = ordersUrl(a, `/${order.id}/fulfillment`);
      const ship = (s: Record<string, unknown>) => ({ shipment: { carrier: 'DHL', trackingNumber: 'T', ...s } });
      for (const [body, path] of [
        [{}, 'shipment'],
        [{ status: 'canceled', ...ship({}) }, 'status'],
        [{ status: 'shipped' }, 'status'],
        [{ status: null }, 'status'],
        [{ shipment: null }, 'shipment'],
        [{ shipment: { trackingNumber: 'T' } }, 'shipment.carrier'],
        [ship({ trackingUrl: 'javascript:alert(1)' }), 'shipment.trackingUrl'],
        [ship({ lines: [] }), 'shipment.lines'],
        [ship({ lines: [{ lineId: line.id, quantity: 0 }] }), 'shipment.lines.0.quantity'],
        [ship({ lines: [{ lineId: 999_999_999, quantity: 1 }] }), 'shipment.lines.0.lineId'],
        [
          ship({
            lines: [
              { lineId: line.id, quantity: 1 },
              { lineId: line.id, quantity: 1 },
            ],
          }),
          'shipment.lines.1.lineId',
        ],
        [ship({ carrier: 'A\nB' }), 'shipment.carrier'],
      ] as const) {
        const res = await a.api.patch(url).send(body);
        expectProblem(res, 400, 'validation_failed');
        expect({ path, errors: res.body.errors.map((e: { path: string }) => e.path) }).toEqual({
          path,
          errors: expect.arrayContaining([path]),
        });
      }
      const row = await orders().findOneByOrFail({ id: order.id });
      expect([row.fulfillmentStatus, (await lineRows().findOneByOrFail({ id: line.id })).fulfilledQuantity]).toEqual([
        'unfulfilled',
        0,
      ]);
    });
  });
});
