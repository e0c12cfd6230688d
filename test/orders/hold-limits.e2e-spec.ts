import request from 'supertest';
import { ProductEntity } from '../../src/catalog/entities/product.entity';
import { ProductVariantEntity } from '../../src/catalog/entities/product-variant.entity';
import { Clock } from '../../src/common/scheduling/clock';
import { SiteEntity } from '../../src/common/tenancy/entities/site.entity';
import { OrderEntity } from '../../src/orders/entities/order.entity';
import { OrderExpiryJob } from '../../src/orders/order-expiry.job';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { SessionsService } from '../../src/users/auth/sessions.service';
import { snapshotDatabase } from '../support/db-snapshot';
import { queriesDuring, SentStatement } from '../support/statements';
import { eventsOf, lastEventId } from '../support/events';
import { expectExactProblem, expectProblem } from '../support/problem';
import { expectSettingsRefused } from '../support/site-settings';
import { Tenant, withTenants } from '../support/tenant';
import { makeOrder, makeProduct, makeVariant, ordersUrl } from './orders-fixtures';

const MINUTE = 60_000;

interface Plan {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: Plan[];
}

/** The tables a plan reads whole, and the indexes it reads. */
function scansOf(plan: Plan, out = { seq: [] as string[], indexes: [] as string[] }) {
  if (plan['Node Type'] === 'Seq Scan' && plan['Relation Name']) out.seq.push(plan['Relation Name']);
  if (plan['Index Name']) out.indexes.push(plan['Index Name']);
  for (const child of plan.Plans ?? []) scansOf(child, out);
  return out;
}

type Line = { productId: number; variantId?: number; quantity: number };
type Auth = { authorization: string };

/**
 * docs/orders.md, "Reservations": a site user holds stock in proportion. With the default
 * settings (10 units of an item, 50 in all, a 10-minute cool-down after a hold of theirs expired)
 * one user cannot sell a product out to the other buyers by holding it unpaid, whichever way they
 * order it; a refusal is a 409 that changes nothing. The app's Clock is moved (jest.spyOn); the
 * queue's workers are off, so only the sweep called below expires orders.
 */
describe('stock reservations: hold limits per site user', () => {
  const ctx = withTenants(2, {
    freshDatabase: 'hold-limits',
    env: { CATALOG_CACHE_TTL_MS: '0', JOBS_ENABLED: 'false' },
  });
  let a: Tenant;
  let b: Tenant;
  let users = 0;
  const orders = () => ctx.t.db.getRepository(OrderEntity);
  const stockOf = async (id: number) =>
    (await ctx.t.db.getRepository(ProductEntity).findOneByOrFail({ id })).quantityAvailable;
  const variantStockOf = async (id: number) =>
    (await ctx.t.db.getRepository(ProductVariantEntity).findOneByOrFail({ id })).quantityAvailable;
  const siteUrl = (x: Tenant) => `/api/v2/sites/${x.siteName}`;
  const moveClock = (to: Date): Date => {
    jest.spyOn(ctx.t.app.get(Clock), 'now').mockReturnValue(to);
    return to;
  };

  async function signedIn(x: Tenant): Promise<{ auth: Auth; userId: number }> {
    users += 1;
    const user = await ctx.t.db
      .getRepository(SiteUserEntity)
      .save({ siteId: x.siteId, email: `holder${users}@example.com`, name: 'Holder', status: 'active', metadata: {} });
    const { token } = await ctx.t.db.transaction((em) => ctx.t.app.get(SessionsService).create(em, user, {}));
    return { auth: { authorization: `Bearer ${token}` }, userId: user.id };
  }

  const place = (x: Tenant, auth: Auth, lines: Line[]) =>
    request(ctx.t.server).post(ordersUrl(x)).set(auth).send({ lines });

  /** A refused order: the exact 409, and nothing changed (no order, no stock, no event, no row anywhere). */
  async function expectRefused(
    x: Tenant,
    auth: Auth,
    lines: Line[],
    code: 'hold_limit_exceeded' | 'hold_cooldown',
    detail: string,
  ): Promise<request.Response> {
    const before = await snapshotDatabase(ctx.t.db);
    const eventId = await lastEventId(ctx.t);
    const res = await place(x, auth, lines);
    expectExactProblem(res, 409, code, 'Conflict', detail);
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
    expect(await eventsOf(ctx.t, x, eventId)).toEqual([]);
    return res;
  }

  beforeAll(() => {
    [a, b] = ctx.tenants;
  });
  afterEach(() => jest.restoreAllMocks());

  it('with the default settings, one user cannot sell a product out to others, whichever way they order it', async () => {
    const print = await makeProduct(a, { name: 'Limited print', quantityAvailable: 50 });
    const tee = await makeProduct(a, { name: 'Tee', option1: 'Size' });
    const teeM = await makeVariant(a, tee.id, { option1Value: 'M', quantityAvailable: 15 });
    const teeL = await makeVariant(a, tee.id, { option1Value: 'L', quantityAvailable: 15 });
    const poster = await makeProduct(a, { name: 'Poster', quantityAvailable: 40 });
    const card = await makeProduct(a, { name: 'Card', quantityAvailable: 40 });
    const badge = await makeProduct(a, { name: 'Badge', quantityAvailable: 40 });
    const ebook = await makeProduct(a, { name: 'E-book' }); // unlimited stock: held by nobody
    const holder = await signedIn(a);
    const other = await signedIn(a);

    // The whole stock in one line, a line past the limit, the limit split over lines of one order.
    await expectRefused(
      a,
      holder.auth,
      [{ productId: print.id, quantity: 50 }],
      'hold_limit_exceeded',
      'You may hold at most 10 of Limited print in unpaid orders; you hold 0 and ask for 50',
    );
    await expectRefused(
      a,
      holder.auth,
      [{ productId: print.id, quantity: 11 }],
      'hold_limit_exceeded',
      'You may hold at most 10 of Limited print in unpaid orders; you hold 0 and ask for 11',
    );
    await expectRefused(
      a,
      holder.auth,
      [
        { productId: print.id, quantity: 6 },
        { productId: card.id, quantity: 1 },
        { productId: print.id, quantity: 5 },
      ],
      'hold_limit_exceeded',
      'You may hold at most 10 of Limited print in unpaid orders; you hold 0 and ask for 11',
    );
    expect(await stockOf(print.id)).toBe(50);

    // Up to the limit, then one more in another order.
    await place(a, holder.auth, [
      { productId: print.id, quantity: 4 },
      { productId: print.id, quantity: 6 },
    ]).expect(201);
    expect(await stockOf(print.id)).toBe(40);
    await expectRefused(
      a,
      holder.auth,
      [{ productId: print.id, quantity: 1 }],
      'hold_limit_exceeded',
      'You may hold at most 10 of Limited print in unpaid orders; you hold 10 and ask for 1',
    );

    // Each variant is its own stock, with its own limit; unlimited stock counts for nothing.
    await place(a, holder.auth, [{ productId: tee.id, variantId: teeM.id, quantity: 10 }]).expect(201);
    await expectRefused(
      a,
      holder.auth,
      [{ productId: tee.id, variantId: teeM.id, quantity: 1 }],
      'hold_limit_exceeded',
      'You may hold at most 10 of Tee (M) in unpaid orders; you hold 10 and ask for 1',
    );
    await place(a, holder.auth, [
      { productId: tee.id, variantId: teeL.id, quantity: 10 },
      { productId: ebook.id, quantity: 500 },
    ]).expect(201);
    await place(a, holder.auth, [{ productId: poster.id, quantity: 10 }]).expect(201);

    // 40 held: the total of 50 is the next bound, over every order and line (unlimited stock aside).
    await expectRefused(
      a,
      holder.auth,
      [
        { productId: card.id, quantity: 6 },
        { productId: ebook.id, quantity: 3 },
        { productId: badge.id, quantity: 5 },
      ],
      'hold_limit_exceeded',
      'You may hold at most 50 units in all your unpaid orders; you hold 40 and ask for 11',
    );
    await place(a, holder.auth, [{ productId: card.id, quantity: 10 }]).expect(201);
    expect(await orders().countBy({ siteId: a.siteId, userId: holder.userId })).toBe(5);
    expect([await variantStockOf(teeM.id), await variantStockOf(teeL.id), await stockOf(card.id)]).toEqual([5, 5, 30]);

    // Everyone else still buys every item the holder holds.
    await place(a, other.auth, [
      { productId: print.id, quantity: 10 },
      { productId: tee.id, variantId: teeM.id, quantity: 5 },
      { productId: tee.id, variantId: teeL.id, quantity: 5 },
    ]).expect(201);
    expect(await stockOf(print.id)).toBe(30);
    expect([await variantStockOf(teeM.id), await variantStockOf(teeL.id)]).toEqual([0, 0]);

    // The site's backend (a key) is the site's own: not limited, even for the holder's address.
    const email = (await ctx.t.db.getRepository(SiteUserEntity).findOneByOrFail({ id: holder.userId })).email;
    await makeOrder(a, [[print.id, 25]], { customer: { email } });
    expect(await stockOf(print.id)).toBe(5);
  });

  it('after a hold expired, its buyer waits the cool-down for that item; the others buy it meanwhile', async () => {
    const drop = await makeProduct(a, { name: 'Drop', quantityAvailable: 20 });
    const mug = await makeProduct(a, { name: 'Mug', quantityAvailable: 20 });
    const holder = await signedIn(a);
    const other = await signedIn(a);
    const held = (await place(a, holder.auth, [{ productId: drop.id, quantity: 10 }]).expect(201)).body;
    const expiredAt = new Date(held.expiresAt as string);
    const reopens = new Date(expiredAt.getTime() + 10 * MINUTE);
    const detail =
      `Your unpaid order of Drop expired at ${expiredAt.toISOString()}; ` +
      `you may order it again from ${reopens.toISOString()} (10 minutes later)`;

    // A minute past the hold, before the expiry has canceled it: that item waits, another does not.
    moveClock(new Date(expiredAt.getTime() + MINUTE));
    const refused = await expectRefused(
      a,
      holder.auth,
      [
        { productId: mug.id, quantity: 1 },
        { productId: drop.id, quantity: 1 },
      ],
      'hold_cooldown',
      detail,
    );
    expect(refused.headers['retry-after']).toBe('540');
    await place(a, holder.auth, [{ productId: mug.id, quantity: 1 }]).expect(201);

    // The expiry gives the stock back; the others buy it; the holder still waits, to the second.
    expect(await ctx.t.app.get(OrderExpiryJob).sweep()).toBeGreaterThanOrEqual(1);
    expect((await orders().findOneByOrFail({ id: held.id })).fulfillmentStatus).toBe('canceled');
    await place(a, other.auth, [{ productId: drop.id, quantity: 10 }]).expect(201);
    moveClock(new Date(reopens.getTime() - 1000));
    const last = await expectRefused(a, holder.auth, [{ productId: drop.id, quantity: 1 }], 'hold_cooldown', detail);
    expect(last.headers['retry-after']).toBe('1');
    moveClock(reopens);
    await place(a, holder.auth, [{ productId: drop.id, quantity: 10 }]).expect(201);
    expect(await stockOf(drop.id)).toBe(0);
  });

  it('what is paid, or canceled by the site, is held no longer, and a site’s cancel starts no cool-down', async () => {
    const print = await makeProduct(a, { name: 'Print', quantityAvailable: 100 });
    const holder = await signedIn(a);
    const first = (await place(a, holder.auth, [{ productId: print.id, quantity: 10 }]).expect(201)).body;
    expectProblem(await place(a, holder.auth, [{ productId: print.id, quantity: 1 }]), 409, 'hold_limit_exceeded');

    await a.api
      .patch(ordersUrl(a, `/${first.id}/payment`))
      .send({ paymentStatus: 'paid' })
      .expect(200);
    const second = (await place(a, holder.auth, [{ productId: print.id, quantity: 10 }]).expect(201)).body;
    await a.api
      .patch(ordersUrl(a, `/${second.id}/fulfillment`))
      .send({ status: 'canceled' })
      .expect(200);
    await place(a, holder.auth, [{ productId: print.id, quantity: 10 }]).expect(201);
    expect(await stockOf(print.id)).toBe(80);
  });

  it('holds under concurrency: one user’s orders at once never pass the limit of an item, nor the total', async () => {
    await b.api
      .patch(siteUrl(b))
      .send({ settings: { orders: { maxPendingPerUser: 20 } } })
      .expect(200);
    const print = await makeProduct(b, { name: 'Print', quantityAvailable: 100 });
    const one = await signedIn(b);
    const perItem = await Promise.all(
      Array.from({ length: 8 }, () => place(b, one.auth, [{ productId: print.id, quantity: 3 }])),
    );
    expect(perItem.map((r) => r.status).sort()).toEqual([201, 201, 201, 409, 409, 409, 409, 409]);
    for (const r of perItem.filter((x) => x.status === 409)) expectProblem(r, 409, 'hold_limit_exceeded');
    expect(await stockOf(print.id)).toBe(91);

    const products = await Promise.all(
      Array.from({ length: 8 }, (_, i) => makeProduct(b, { name: `Item ${i}`, quantityAvailable: 10 })),
    );
    const two = await signedIn(b);
    const total = await Promise.all(products.map((p) => place(b, two.auth, [{ productId: p.id, quantity: 10 }])));
    expect(total.map((r) => r.status).sort()).toEqual([201, 201, 201, 201, 201, 409, 409, 409]);
    for (const r of total.filter((x) => x.status === 409))
      expectExactProblem(
        r,
        409,
        'hold_limit_exceeded',
        'Conflict',
        'You may hold at most 50 units in all your unpaid orders; you hold 50 and ask for 10',
      );
    const left = await Promise.all(products.map((p) => stockOf(p.id)));
    expect(left.filter((n) => n === 0).length).toBe(5);
    expect(left.filter((n) => n === 10).length).toBe(3);
    await b.api
      .patch(siteUrl(b))
      .send({ settings: { orders: { maxPendingPerUser: null } } })
      .expect(200);
  });

  it('a site sets its own limits and cool-down; bad values are a 400 naming the field that change nothing', async () => {
    const x = b;
    const defaults = { maxHeldPerProduct: 10, maxHeldPerUser: 50, holdCooldownMinutes: 10 };
    expect((await x.api.get(siteUrl(x)).expect(200)).body.settings.orders).toEqual(expect.objectContaining(defaults));
    const before = (await ctx.t.db.getRepository(SiteEntity).findOneByOrFail({ id: x.siteId })).settings;
    await expectSettingsRefused(ctx.t, x, 'orders', [
      { maxHeldPerProduct: 0 },
      { maxHeldPerProduct: 1_000_001 },
      { maxHeldPerProduct: 2.5 },
      { maxHeldPerProduct: '10' },
      { maxHeldPerUser: 0 },
      { maxHeldPerUser: -1 },
      { maxHeldPerUser: 1_000_001 },
      { maxHeldPerUser: true },
      { holdCooldownMinutes: -1 },
      { holdCooldownMinutes: 10_081 },
      { holdCooldownMinutes: 0.5 },
      { holdCooldownMinutes: [10] },
    ]);

    // The bounds are accepted.
    const edges = await x.api
      .patch(siteUrl(x))
      .send({ settings: { orders: { maxHeldPerProduct: 1_000_000, maxHeldPerUser: 1, holdCooldownMinutes: 10_080 } } })
      .expect(200);
    expect(edges.body.settings.orders).toEqual(
      expect.objectContaining({ maxHeldPerProduct: 1_000_000, maxHeldPerUser: 1, holdCooldownMinutes: 10_080 }),
    );

    // The site's values apply: 2 of an item, 3 in all, no cool-down.
    await x.api
      .patch(siteUrl(x))
      .send({ settings: { orders: { maxHeldPerProduct: 2, maxHeldPerUser: 3, holdCooldownMinutes: 0 } } })
      .expect(200);
    const print = await makeProduct(x, { name: 'Print', quantityAvailable: 10 });
    const card = await makeProduct(x, { name: 'Card', quantityAvailable: 10 });
    const holder = await signedIn(x);
    await expectRefused(
      x,
      holder.auth,
      [{ productId: print.id, quantity: 3 }],
      'hold_limit_exceeded',
      'You may hold at most 2 of Print in unpaid orders; you hold 0 and ask for 3',
    );
    const held = (await place(x, holder.auth, [{ productId: print.id, quantity: 2 }]).expect(201)).body;
    await expectRefused(
      x,
      holder.auth,
      [{ productId: card.id, quantity: 2 }],
      'hold_limit_exceeded',
      'You may hold at most 3 units in all your unpaid orders; you hold 2 and ask for 2',
    );
    moveClock(new Date(Date.parse(held.expiresAt as string) + 1000));
    await place(x, holder.auth, [{ productId: print.id, quantity: 2 }]).expect(201);

    // null: the defaults again.
    const back = await x.api
      .patch(siteUrl(x))
      .send({ settings: { orders: { maxHeldPerProduct: null, maxHeldPerUser: null, holdCooldownMinutes: null } } })
      .expect(200);
    expect(back.body.settings.orders).toEqual(expect.objectContaining(defaults));
    expect((await ctx.t.db.getRepository(SiteEntity).findOneByOrFail({ id: x.siteId })).settings).toEqual(before);
  });

  it('reads what a user holds by indexes: the partial index of their unpaid orders, the lines, the stock by key', async () => {
    const print = await makeProduct(a, { name: 'Print', quantityAvailable: 10 });
    const holder = await signedIn(a);
    await place(a, holder.auth, [{ productId: print.id, quantity: 1 }]).expect(201);
    const sent = await queriesDuring(async () => {
      await place(a, holder.auth, [{ productId: print.id, quantity: 1 }]).expect(201);
    });
    const reads = sent.filter(
      (q) => /^\s*(select|with)\b/i.test(q.text) && /\b(orders|products|product_variants)\b/.test(q.text),
    );
    const plan = (q: SentStatement) =>
      ctx.t.db.transaction(async (em) => {
        await em.query('SET LOCAL enable_seqscan = off');
        const [row] = await em.query<Array<{ 'QUERY PLAN': Array<{ Plan: Plan }> }>>(
          `EXPLAIN (FORMAT JSON) ${q.text}`,
          q.values,
        );
        return scansOf(row['QUERY PLAN'][0].Plan);
      });
    const held = reads.find((q) => q.text.includes('FROM mine o JOIN order_lines'));
    const counted = reads.find((q) => q.text.includes('quantity_available IS NOT NULL'));
    expect([held, counted].every(Boolean)).toBe(true);
    for (const q of reads) expect([q.text, (await plan(q)).seq]).toEqual([q.text, []]);
    expect((await plan(held!)).indexes).toEqual(
      expect.arrayContaining(['orders_site_id_user_id_expires_at_idx', 'order_lines_order_id_position_idx']),
    );
  });
});
