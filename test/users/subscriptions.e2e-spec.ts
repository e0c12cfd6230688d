import request from 'supertest';
import { OrderEntity } from '../../src/orders/entities/order.entity';
import { CreditEntryEntity } from '../../src/users/entities/credit-entry.entity';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { SubscriptionEntryEntity } from '../../src/users/entities/subscription-entry.entity';
import { UserSubscriptionEntity } from '../../src/users/entities/user-subscription.entity';
import { SessionsService } from '../../src/users/auth/sessions.service';
import { SubscriptionJobsService } from '../../src/users/subscriptions/subscription-jobs.service';
import { eventually } from '../support/app';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { Tenant, withTenants } from '../support/tenant';
import { makeOrder, makeProduct, Made, ordersUrl } from '../support/commerce';

const DAY = 86_400_000;

describe('site users: subscriptions to recurring products', () => {
  const ctx = withTenants(2, { env: { CATALOG_CACHE_TTL_MS: '0' } });
  let a: Tenant;
  let b: Tenant;
  let monthly: Made;
  let yearly: Made;
  let oneOff: Made;
  const users = (x: Tenant, rest = '') => `/api/v2/sites/${x.siteName}/users${rest}`;
  const subs = () => ctx.t.db.getRepository(UserSubscriptionEntity);
  const entries = () => ctx.t.db.getRepository(SubscriptionEntryEntity);
  const jobs = () => ctx.t.app.get(SubscriptionJobsService);

  beforeAll(async () => {
    [a, b] = ctx.tenants;
    monthly = await makeProduct(a, {
      name: 'Monthly box',
      unitAmount: 3000,
      recurring: { interval: 'month', intervalCount: 1 },
    });
    yearly = await makeProduct(a, {
      name: 'Yearly box',
      unitAmount: 30000,
      recurring: { interval: 'year', intervalCount: 1 },
    });
    oneOff = await makeProduct(a, { name: 'Mug', unitAmount: 1000 });
  });

  async function sessionOf(userId: number): Promise<string> {
    const user = await ctx.t.db.getRepository(SiteUserEntity).findOneByOrFail({ id: userId });
    const { token } = await ctx.t.db.transaction((em) => ctx.t.app.get(SessionsService).create(em, user, {}));
    return token;
  }

  /** A paid order of the monthly plan for `email`; answers the subscription the outbox made. */
  async function subscribed(email: string, quantity = 1): Promise<UserSubscriptionEntity & { token: string }> {
    const order = await makeOrder(a, [[monthly.id, quantity]], { customer: { email } });
    await a.api
      .patch(ordersUrl(a, `/${order.id}/payment`))
      .send({ paymentStatus: 'paid' })
      .expect(200);
    const sub = await eventually(async () => (await subs().findOneBy({ orderId: order.id })) ?? undefined);
    return Object.assign(sub, { token: await sessionOf(sub.userId) });
  }

  const opUrl = (s: { userId: number; id: number }, action: string) =>
    users(a, `/${s.userId}/subscriptions/${s.id}/${action}`);
  /** An operator's action; `resume` takes no body (`{}` is accepted, a field is a 400, like on every body-less route). */
  const act = (s: { userId: number; id: number }, action: string, body?: object) => {
    const req = a.api.post(opUrl(s, action));
    return body === undefined ? req : req.send(body);
  };

  describe('started by a paid order (order.subscription_requested)', () => {
    it('a paid recurring line starts one subscription, for a site user made from the order’s address', async () => {
      const order = await makeOrder(
        a,
        [
          [oneOff.id, 1],
          [monthly.id, 2],
        ],
        { customer: { email: 'New.Buyer@Example.com' } },
      );
      // Unpaid: nothing starts.
      await new Promise((r) => setTimeout(r, 600));
      expect(await subs().countBy({ orderId: order.id })).toBe(0);
      const after = await lastEventId(ctx.t);
      await a.api
        .patch(ordersUrl(a, `/${order.id}/payment`))
        .send({ paymentStatus: 'paid' })
        .expect(200);
      const sub = await eventually(async () => (await subs().findOneBy({ orderId: order.id })) ?? undefined);
      const user = await ctx.t.db.getRepository(SiteUserEntity).findOneByOrFail({ id: sub.userId });
      expect(user).toEqual(expect.objectContaining({ siteId: a.siteId, email: 'new.buyer@example.com' }));

      const listed = await a.api.get(users(a, `/${user.id}/subscriptions`)).expect(200);
      expect(listed.body).toEqual({
        data: [
          {
            id: sub.id,
            userId: user.id,
            productId: monthly.id,
            variantId: null,
            quantity: 2,
            status: 'active',
            unitAmount: 3000,
            currency: 'EUR',
            interval: 'month',
            intervalCount: 1,
            currentPeriodStart: ISO,
            currentPeriodEnd: ISO,
            trialEndsAt: null,
            cancelAtPeriodEnd: false,
            canceledAt: null,
            cancelReason: null,
            unpaidCancelAt: null,
            pausedAt: null,
            resumesAt: null,
            balance: 0,
            processor: 'manual',
            processorSubscriptionId: null,
            orderId: order.id,
            createdAt: ISO,
            updatedAt: ISO,
          },
        ],
        pagination: { limit: 20, nextCursor: null },
      });
      const start = new Date(listed.body.data[0].currentPeriodStart);
      const end = new Date(listed.body.data[0].currentPeriodEnd);
      expect(end.getUTCMonth()).toBe((start.getUTCMonth() + 1) % 12);
      // Its first period is paid by the order: the ledger's `initial` line.
      expect(await entries().findBy({ subscriptionId: sub.id })).toEqual([
        expect.objectContaining({
          siteId: a.siteId,
          kind: 'initial',
          amount: 6000,
          currency: 'EUR',
          status: 'paid',
          paidWith: 'order',
          creditApplied: 0,
          periodStart: start,
          periodEnd: end,
          paidAt: expect.any(Date),
        }),
      ]);
      const events = await eventually(async () => {
        const e = await eventsOf(ctx.t, a, after);
        return e.some((x) => x.name === 'user.subscription.created') ? e : undefined;
      });
      expect(events.map((e) => e.name)).toEqual([
        'order.paid',
        'order.subscription_requested',
        'user.created',
        'user.subscription.created',
      ]);
      expect(events[3].payload).toEqual({
        id: sub.id,
        userId: user.id,
        productId: monthly.id,
        variantId: null,
        status: 'active',
        previousStatus: null,
        change: 'created',
        currentPeriodEnd: end.toISOString(),
        cancelAtPeriodEnd: false,
      });

      // Delivered again (at least once): nothing more starts.
      const requested = await ctx.t.db.query<Array<{ id: string; payload: Record<string, unknown> }>>(
        `SELECT id, payload FROM outbox_events WHERE name = 'order.subscription_requested' AND site_id = $1
          AND (payload->>'orderId')::bigint = $2`,
        [a.siteId, order.id],
      );
      const again = await ctx.t.db.transaction((em) =>
        jobs().startFromOrder(em, {
          id: Number(requested[0].id),
          accountId: a.accountId,
          siteId: a.siteId,
          name: 'order.subscription_requested',
          payload: requested[0].payload,
          createdAt: new Date(),
        }),
      );
      expect(again).toBeNull();
      expect(await subs().countBy({ orderId: order.id })).toBe(1);
    });

    it('a signed-in user places their own order, lists only theirs, and its subscription is theirs', async () => {
      const me = await ctx.t.db
        .getRepository(SiteUserEntity)
        .save({ siteId: a.siteId, email: 'shopper@example.com', name: 'Shopper', status: 'active', metadata: {} });
      const token = await sessionOf(me.id);
      const auth = { authorization: `Bearer ${token}` };
      const someoneElse = await makeOrder(a, [[oneOff.id, 1]], { customer: { email: 'other@example.com' } });

      const placed = await request(ctx.t.server)
        .post(ordersUrl(a))
        .set(auth)
        .send({ lines: [{ productId: monthly.id, quantity: 1 }] })
        .expect(201);
      expect(placed.body).toEqual(
        expect.objectContaining({
          userId: me.id,
          paymentStatus: 'pending',
          customer: { email: 'shopper@example.com', name: 'Shopper', phone: null },
        }),
      );
      const row = await ctx.t.db.getRepository(OrderEntity).findOneByOrFail({ id: placed.body.id });
      expect(row).toEqual(expect.objectContaining({ userId: me.id, customerEmail: 'shopper@example.com' }));

      const mine = await request(ctx.t.server).get(ordersUrl(a)).set(auth).expect(200);
      expect(mine.body.data.map((o: { id: number }) => o.id)).toEqual([placed.body.id]);
      await request(ctx.t.server)
        .get(ordersUrl(a, `/${placed.body.id}`))
        .set(auth)
        .expect(200);
      expectProblem(
        await request(ctx.t.server)
          .get(ordersUrl(a, `/${someoneElse.id}`))
          .set(auth),
        404,
        'not_found',
      );
      // Not under another address; payment and fulfillment stay the site's backend's.
      const other = await request(ctx.t.server)
        .post(ordersUrl(a))
        .set(auth)
        .send({ lines: [{ productId: oneOff.id, quantity: 1 }], customer: { email: 'else@example.com' } });
      expectProblem(other, 400, 'validation_failed');
      expect(other.body.errors).toEqual([expect.objectContaining({ path: 'customer.email' })]);
      expectProblem(
        await request(ctx.t.server)
          .patch(ordersUrl(a, `/${placed.body.id}/payment`))
          .set(auth)
          .send({ paymentStatus: 'paid' }),
        403,
        'session_not_allowed',
      );
      // A key still needs a customer.
      expectProblem(
        await a.api.post(ordersUrl(a)).send({ lines: [{ productId: oneOff.id, quantity: 1 }] }),
        400,
        'validation_failed',
      );
      // A session of site A is no credential on site B.
      expectProblem(await request(ctx.t.server).get(ordersUrl(b)).set(auth), 401, 'invalid_session');

      await a.api
        .patch(ordersUrl(a, `/${placed.body.id}/payment`))
        .send({ paymentStatus: 'paid' })
        .expect(200);
      const sub = await eventually(async () => (await subs().findOneBy({ orderId: placed.body.id })) ?? undefined);
      expect(sub.userId).toBe(me.id);
      const own = await request(ctx.t.server).get(users(a, '/me/subscriptions')).set(auth).expect(200);
      expect(own.body.data.map((s: { id: number }) => s.id)).toEqual([sub.id]);
    });
  });

  describe('transitions', () => {
    it('pause → resume → cancel at period end → cancel; each forbidden move is a 409 that changes nothing', async () => {
      const sub = await subscribed('moves@example.com');
      const after = await lastEventId(ctx.t);
      const resumesAt = new Date(Date.now() + 30 * DAY).toISOString();
      const paused = await a.api.post(opUrl(sub, 'pause')).send({ resumesAt }).expect(200);
      expect(paused.body).toEqual(expect.objectContaining({ status: 'paused', pausedAt: ISO, resumesAt }));

      const before = await subs().findOneByOrFail({ id: sub.id });
      for (const [action, body] of [
        ['pause', {}],
        ['change-plan', { productId: yearly.id }],
      ] as const)
        expectProblem(await act(sub, action, body), 409, 'transition_forbidden');
      expectProblem(await a.api.post(opUrl(sub, 'cancel')).send({ atPeriodEnd: true }), 409, 'transition_forbidden');
      expect(await subs().findOneByOrFail({ id: sub.id })).toEqual(before);

      const resumed = await a.api.post(opUrl(sub, 'resume')).expect(200);
      expect(resumed.body).toEqual(expect.objectContaining({ status: 'active', pausedAt: null, resumesAt: null }));
      expectProblem(await a.api.post(opUrl(sub, 'resume')), 409, 'transition_forbidden');

      const scheduled = await a.api
        .post(opUrl(sub, 'cancel'))
        .send({ atPeriodEnd: true, reason: 'Moving abroad' })
        .expect(200);
      expect(scheduled.body).toEqual(
        expect.objectContaining({ status: 'active', cancelAtPeriodEnd: true, cancelReason: 'Moving abroad' }),
      );
      expectProblem(await a.api.post(opUrl(sub, 'cancel')).send({ atPeriodEnd: true }), 409, 'transition_forbidden');

      const canceled = await a.api.post(opUrl(sub, 'cancel')).expect(200);
      expect(canceled.body).toEqual(
        expect.objectContaining({ status: 'canceled', canceledAt: ISO, cancelAtPeriodEnd: false }),
      );
      const final = await subs().findOneByOrFail({ id: sub.id });
      for (const [action, body] of [
        ['pause', {}],
        ['resume', undefined],
        ['cancel', {}],
        ['change-plan', { productId: yearly.id }],
        ['charges', { amount: 100, description: 'Late fee' }],
      ] as const)
        expectProblem(await act(sub, action, body), 409, 'transition_forbidden');
      expect(await subs().findOneByOrFail({ id: sub.id })).toEqual(final);
      // Only the first period's line: pausing and resuming inside a paid period owes nothing.
      expect((await entries().findBy({ subscriptionId: sub.id })).map((e) => e.kind)).toEqual(['initial']);

      const events = await eventsOf(ctx.t, a, after);
      expect(events.map((e) => [e.name, e.payload.change, e.payload.previousStatus, e.payload.status])).toEqual([
        ['user.subscription.updated', 'paused', 'active', 'paused'],
        ['user.subscription.updated', 'resumed', 'paused', 'active'],
        ['user.subscription.updated', 'cancel_scheduled', 'active', 'active'],
        ['user.subscription.canceled', 'canceled', 'active', 'canceled'],
      ]);
    });

    it('trialing and past_due (set by a processor) move as the table says', async () => {
      const trial = await subscribed('trial@example.com');
      await subs().update({ id: trial.id }, { status: 'trialing', trialEndsAt: new Date(Date.now() + 7 * DAY) });
      await a.api.post(opUrl(trial, 'pause')).send({}).expect(200);
      await a.api.post(opUrl(trial, 'resume')).expect(200);
      expect((await subs().findOneByOrFail({ id: trial.id })).status).toBe('active');

      const late = await subscribed('late@example.com');
      await subs().update({ id: late.id }, { status: 'past_due' });
      for (const [action, body] of [
        ['pause', {}],
        ['resume', undefined],
        ['change-plan', { productId: yearly.id }],
      ] as const)
        expectProblem(await act(late, action, body), 409, 'transition_forbidden');
      expectProblem(await a.api.post(opUrl(late, 'cancel')).send({ atPeriodEnd: true }), 409, 'transition_forbidden');
      expect((await subs().findOneByOrFail({ id: late.id })).status).toBe('past_due');
      await a.api.post(opUrl(late, 'cancel')).send({ reason: 'Never paid' }).expect(200);
      expect(await subs().findOneByOrFail({ id: late.id })).toEqual(
        expect.objectContaining({ status: 'canceled', cancelReason: 'Never paid' }),
      );
    });

    it('a pause with a date is resumed by a queued job', async () => {
      const sub = await subscribed('autoresume@example.com');
      const resumesAt = new Date(Date.now() + 1500).toISOString();
      await a.api.post(opUrl(sub, 'pause')).send({ resumesAt }).expect(200);
      const resumed = await eventually(async () => {
        const row = await subs().findOneByOrFail({ id: sub.id });
        return row.status === 'active' ? row : undefined;
      }, 20000);
      expect(resumed).toEqual(expect.objectContaining({ pausedAt: null, resumesAt: null }));
      // A pause with a past date is refused.
      const past = await a.api.post(opUrl(sub, 'pause')).send({ resumesAt: new Date(Date.now() - DAY).toISOString() });
      expectProblem(past, 400, 'validation_failed');
      expect((await subs().findOneByOrFail({ id: sub.id })).status).toBe('active');
    }, 30000);

    it('the period job renews (its charge collected: pending is past_due), ends trials and carries out scheduled cancels', async () => {
      const renew = await subscribed('renew@example.com', 2);
      const trial = await subscribed('trialend@example.com');
      const leaving = await subscribed('leaving@example.com');
      const ended = new Date(Date.now() - 1000);
      const started = new Date(ended.getTime() - 31 * DAY);
      await subs().update({ id: renew.id }, { currentPeriodStart: started, currentPeriodEnd: ended });
      await subs().update(
        { id: trial.id },
        { status: 'trialing', trialEndsAt: ended, currentPeriodStart: started, currentPeriodEnd: ended },
      );
      await a.api.post(opUrl(leaving, 'cancel')).send({ atPeriodEnd: true }).expect(200);
      await subs().update({ id: leaving.id }, { currentPeriodStart: started, currentPeriodEnd: ended });
      const after = await lastEventId(ctx.t);

      expect(await jobs().rollPeriods()).toBeGreaterThanOrEqual(3);

      // The manual processor collects nothing: the new period's charge waits, and so does the subscription.
      const renewed = await subs().findOneByOrFail({ id: renew.id });
      expect(renewed.status).toBe('past_due');
      expect(renewed.currentPeriodStart).toEqual(ended);
      expect(renewed.currentPeriodEnd.getTime()).toBeGreaterThan(Date.now() + 27 * DAY);
      expect(await entries().find({ where: { subscriptionId: renew.id }, order: { id: 'ASC' } })).toEqual([
        expect.objectContaining({ kind: 'initial', amount: 6000, status: 'paid' }),
        expect.objectContaining({
          kind: 'renewal',
          amount: 6000,
          currency: 'EUR',
          status: 'pending',
          paidWith: null,
          creditApplied: 0,
          periodStart: ended,
          periodEnd: renewed.currentPeriodEnd,
        }),
      ]);
      expect((await subs().findOneByOrFail({ id: trial.id })).status).toBe('past_due');
      expect(await subs().findOneByOrFail({ id: leaving.id })).toEqual(
        expect.objectContaining({ status: 'canceled', canceledAt: ended, cancelAtPeriodEnd: false }),
      );
      const events = (await eventsOf(ctx.t, a, after)).filter((e) =>
        [renew.id, trial.id, leaving.id].includes(Number(e.payload.subscriptionId ?? e.payload.id)),
      );
      expect(events.map((e) => [e.name, e.payload.change ?? e.payload.kind])).toEqual(
        expect.arrayContaining([
          ['user.subscription.updated', 'renewed'],
          ['user.subscription.charged', 'renewal'],
          ['user.subscription.updated', 'payment_due'],
          ['user.subscription.updated', 'trial_ended'],
          ['user.subscription.canceled', 'canceled'],
        ]),
      );
      // Nothing left due: a second run moves nothing of these.
      const again = await lastEventId(ctx.t);
      await jobs().rollPeriods();
      expect(
        (await eventsOf(ctx.t, a, again)).filter((e) =>
          [renew.id, trial.id, leaving.id].includes(Number(e.payload.id)),
        ),
      ).toEqual([]);
    });
  });

  describe('change plan', () => {
    it('prorates the period left: the unused plan credited to the balance, the new one collected at once', async () => {
      const sub = await subscribed('upgrade@example.com');
      const now = Date.now();
      // Half of a 30-day period is left.
      const start = new Date(now - 15 * DAY);
      const end = new Date(now + 15 * DAY);
      await subs().update({ id: sub.id }, { currentPeriodStart: start, currentPeriodEnd: end });
      const plus = await makeProduct(a, {
        name: 'Monthly box plus',
        unitAmount: 5000,
        recurring: { interval: 'month', intervalCount: 1 },
      });
      const after = await lastEventId(ctx.t);
      const res = await a.api.post(opUrl(sub, 'change-plan')).send({ productId: plus.id, quantity: 2 }).expect(200);
      // The manual processor collects nothing: the new plan's part waits, and so does the subscription.
      expect(res.body.subscription).toEqual(
        expect.objectContaining({ status: 'past_due', productId: plus.id, quantity: 2, unitAmount: 5000, balance: 0 }),
      );
      expect(res.body.prorations).toEqual(res.body.entries);
      const [credit, charge] = res.body.entries as Array<{ amount: number }>;
      expect(credit.amount).toBeGreaterThanOrEqual(-1501);
      expect(credit.amount).toBeLessThanOrEqual(-1499);
      expect(charge.amount).toBeGreaterThanOrEqual(4999);
      expect(charge.amount).toBeLessThanOrEqual(5001);
      const period = { periodStart: start.toISOString(), periodEnd: end.toISOString() };
      expect(res.body.entries).toEqual([
        expect.objectContaining({ kind: 'proration', status: 'recorded', creditApplied: 0, paidAt: null, ...period }),
        expect.objectContaining({
          kind: 'proration',
          status: 'pending',
          creditApplied: -credit.amount,
          paidWith: null,
          paidAt: null,
          ...period,
        }),
      ]);
      expect(await subs().findOneByOrFail({ id: sub.id })).toEqual(
        expect.objectContaining({ status: 'past_due', balance: 0 }),
      );
      expect(await entries().countBy({ subscriptionId: sub.id })).toBe(3);
      expect(
        (await eventsOf(ctx.t, a, after)).map((e) => [e.name, e.payload.change ?? e.payload.kind, e.payload.status]),
      ).toEqual([
        ['user.subscription.updated', 'plan_changed', 'active'],
        ['user.subscription.charged', 'proration', 'pending'],
        ['user.subscription.updated', 'payment_due', 'past_due'],
      ]);
      // Past due: settle first.
      expectProblem(
        await a.api.post(opUrl(sub, 'change-plan')).send({ productId: yearly.id }),
        409,
        'transition_forbidden',
      );
    });

    it('refuses a one-off product, another currency, another site’s product and the same plan', async () => {
      const sub = await subscribed('refuse@example.com');
      const dollars = await makeProduct(a, {
        name: 'US box',
        unitAmount: 3000,
        currency: 'USD',
        recurring: { interval: 'month', intervalCount: 1 },
      });
      const theirs = await makeProduct(b, { name: 'B box', recurring: { interval: 'month', intervalCount: 1 } });
      const before = await subs().findOneByOrFail({ id: sub.id });
      for (const productId of [oneOff.id, dollars.id, theirs.id]) {
        const res = await a.api.post(opUrl(sub, 'change-plan')).send({ productId });
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors).toEqual([expect.objectContaining({ path: 'productId' })]);
      }
      expectProblem(await a.api.post(opUrl(sub, 'change-plan')).send({ productId: monthly.id }), 409, 'plan_unchanged');
      for (const body of [{}, { productId: 'x' }, { productId: monthly.id, quantity: 0 }, { productId: 1, extra: 1 }])
        expectProblem(await a.api.post(opUrl(sub, 'change-plan')).send(body), 400, 'validation_failed');
      expect(await subs().findOneByOrFail({ id: sub.id })).toEqual(before);
      expect(await entries().countBy({ subscriptionId: sub.id })).toBe(1);
    });
  });

  describe('charges', () => {
    it('pays from credits when asked and the balance allows; otherwise pending for the processor', async () => {
      const sub = await subscribed('charged@example.com');
      await a.api
        .post(users(a, `/${sub.userId}/credits/grant`))
        .send({ amount: 2000, reason: 'Welcome' })
        .expect(201);
      const after = await lastEventId(ctx.t);
      const paid = await a.api
        .post(opUrl(sub, 'charges'))
        .set('Idempotency-Key', 'charge-1')
        .send({ amount: 1500, description: 'Extra seats', payWithCredits: true })
        .expect(201);
      expect(paid.body).toEqual({
        charge: {
          id: expect.any(Number),
          subscriptionId: sub.id,
          kind: 'charge',
          amount: 1500,
          currency: 'EUR',
          description: 'Extra seats',
          status: 'paid',
          paidWith: 'credits',
          creditApplied: 0,
          periodStart: null,
          periodEnd: null,
          creditEntryId: expect.any(Number),
          processorChargeId: null,
          createdAt: ISO,
          paidAt: ISO,
        },
        creditBalance: 500,
      });
      const replay = await a.api
        .post(opUrl(sub, 'charges'))
        .set('Idempotency-Key', 'charge-1')
        .send({ amount: 1500, description: 'Extra seats', payWithCredits: true })
        .expect(201);
      expect(replay.body).toEqual(paid.body);
      expect(await entries().countBy({ subscriptionId: sub.id, kind: 'charge' })).toBe(1);
      expect(
        await ctx.t.db.getRepository(CreditEntryEntity).findOneByOrFail({ id: paid.body.charge.creditEntryId }),
      ).toEqual(
        expect.objectContaining({
          kind: 'spend',
          amount: -1500,
          reference: `subscription-charge:${paid.body.charge.id}`,
        }),
      );

      // Short of credits: pending, nothing taken.
      const pending = await a.api
        .post(opUrl(sub, 'charges'))
        .send({ amount: 900, currency: 'EUR', description: 'More seats', payWithCredits: true })
        .expect(201);
      expect(pending.body).toEqual({
        charge: expect.objectContaining({ status: 'pending', paidWith: null, creditEntryId: null, paidAt: null }),
        creditBalance: null,
      });
      const balance = await a.api.get(users(a, `/${sub.userId}/credits/balance`)).expect(200);
      expect(balance.body).toEqual({ balance: 500 });
      expect((await eventsOf(ctx.t, a, after)).map((e) => [e.name, e.payload.status ?? null])).toEqual([
        ['credits.spent', null],
        ['user.subscription.charged', 'paid'],
        ['user.subscription.charged', 'pending'],
      ]);

      for (const body of [
        { amount: 100, currency: 'USD', description: 'Wrong currency' },
        { amount: 0, description: 'Nothing' },
        { amount: 100 },
        { amount: 1.5, description: 'Fraction' },
        { amount: 100, description: 'x', payWithCredits: 'yes' },
      ])
        expectProblem(await a.api.post(opUrl(sub, 'charges')).send(body), 400, 'validation_failed');
      expect(await entries().countBy({ subscriptionId: sub.id, kind: 'charge' })).toBe(2);
      // An ad-hoc charge left pending is no period's: the status stays.
      expect((await subs().findOneByOrFail({ id: sub.id })).status).toBe('active');
    });
  });

  describe('the owner’s routes (/me/subscriptions)', () => {
    it('lists, pauses, resumes, changes plan and cancels their own; another’s is a 404', async () => {
      const sub = await subscribed('owner@example.com', 3);
      const other = await subscribed('neighbour@example.com');
      const auth = { authorization: `Bearer ${sub.token}` };
      const me = (rest = '') => users(a, `/me/subscriptions${rest}`);
      const listed = await request(ctx.t.server).get(me()).set(auth).expect(200);
      expect(listed.body.data.map((s: { id: number }) => s.id)).toEqual([sub.id]);
      const active = await request(ctx.t.server).get(me('?status=paused')).set(auth).expect(200);
      expect(active.body.data).toEqual([]);

      await request(ctx.t.server)
        .post(me(`/${sub.id}/pause`))
        .set(auth)
        .expect(200);
      await request(ctx.t.server)
        .post(me(`/${sub.id}/resume`))
        .set(auth)
        .expect(200);
      // Theirs is always prorated: `prorate` is the operator's.
      const refused = await request(ctx.t.server)
        .post(me(`/${sub.id}/change-plan`))
        .set(auth)
        .send({ productId: monthly.id, quantity: 1, prorate: false });
      expectProblem(refused, 400, 'validation_failed');
      expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'prorate' })]);
      // Fewer seats: the unused part is credited, and pays for the new part at once.
      const changed = await request(ctx.t.server)
        .post(me(`/${sub.id}/change-plan`))
        .set(auth)
        .send({ productId: monthly.id, quantity: 1 })
        .expect(200);
      expect(changed.body.subscription).toEqual(expect.objectContaining({ quantity: 1, status: 'active' }));
      expect(changed.body.entries).toEqual([
        expect.objectContaining({ kind: 'proration', status: 'recorded' }),
        expect.objectContaining({ kind: 'proration', status: 'paid', paidWith: 'balance' }),
      ]);
      const [credited, used] = changed.body.entries as Array<{ amount: number; creditApplied: number }>;
      expect(used.creditApplied).toBe(used.amount);
      expect(changed.body.subscription.balance).toBe(-credited.amount - used.amount);
      const canceled = await request(ctx.t.server)
        .post(me(`/${sub.id}/cancel`))
        .set(auth)
        .send({ atPeriodEnd: true })
        .expect(200);
      expect(canceled.body).toEqual(expect.objectContaining({ status: 'active', cancelAtPeriodEnd: true }));
      expectProblem(
        await request(ctx.t.server)
          .post(me(`/${sub.id}/resume`))
          .set(auth),
        409,
        'transition_forbidden',
      );

      const theirs = await subs().findOneByOrFail({ id: other.id });
      for (const action of ['pause', 'resume', 'cancel'])
        expectProblem(
          await request(ctx.t.server)
            .post(me(`/${other.id}/${action}`))
            .set(auth),
          404,
          'not_found',
        );
      expect(await subs().findOneByOrFail({ id: other.id })).toEqual(theirs);
    });
  });

  describe('access', () => {
    it('keys, sessions, sites and ids: 401, 403, 404, 400', async () => {
      const sub = await subscribed('access@example.com');
      const auth = { authorization: `Bearer ${sub.token}` };
      expectProblem(
        await request(ctx.t.server).get(users(a, `/${sub.userId}/subscriptions`)),
        401,
        'missing_credential',
      );
      expectProblem(await request(ctx.t.server).post(opUrl(sub, 'pause')).set(auth), 403, 'session_not_allowed');
      expectProblem(await a.api.get(users(a, '/me/subscriptions')), 403, 'session_required');
      expectProblem(await request(ctx.t.server).get(users(b, '/me/subscriptions')).set(auth), 401, 'invalid_session');
      // Site B's key on site A's user: 404 (the user and the subscription are not B's).
      expectProblem(await b.api.get(users(b, `/${sub.userId}/subscriptions`)), 404, 'not_found');
      expectProblem(
        await b.api.post(users(b, `/${sub.userId}/subscriptions/${sub.id}/pause`)).send({}),
        404,
        'not_found',
      );
      // Another user's id with this subscription: 404.
      const stranger = await subscribed('stranger@example.com');
      expectProblem(
        await a.api.post(users(a, `/${stranger.userId}/subscriptions/${sub.id}/pause`)).send({}),
        404,
        'not_found',
      );
      for (const path of [`/${sub.userId}/subscriptions/0/pause`, `/${sub.userId}/subscriptions/x/resume`])
        expectProblem(await a.api.post(users(a, path)), 400, 'validation_failed');
      expectProblem(await a.api.get(users(a, `/${sub.userId}/subscriptions?status=gone`)), 400, 'validation_failed');
      expect((await subs().findOneByOrFail({ id: sub.id })).status).toBe('active');
    });
  });
});
