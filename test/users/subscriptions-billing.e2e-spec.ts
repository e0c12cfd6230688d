import request from 'supertest';
import { Clock } from '../../src/common/scheduling/clock';
import { CreditEntryEntity } from '../../src/users/entities/credit-entry.entity';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { SubscriptionEntryEntity } from '../../src/users/entities/subscription-entry.entity';
import { UserSubscriptionEntity } from '../../src/users/entities/user-subscription.entity';
import { SessionsService } from '../../src/users/auth/sessions.service';
import { SubscriptionJobsService } from '../../src/users/subscriptions/subscription-jobs.service';
import { makeOrder, makeProduct, Made, ordersUrl } from '../support/commerce';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { Tenant, withTenants } from '../support/tenant';

/**
 * Subscription billing after Stripe's model (docs/users.md, "Subscriptions"): issue #29's rows,
 * the balance, past-due ends and the pay route, with the Clock moved by the test. Jobs are off
 * (the period job runs when the test says), so the order's `order.subscription_requested` is
 * handed to the service the way the outbox relay would.
 */

describe('site users: subscription billing (no period without its charge)', () => {
  const ctx = withTenants(2, {
    freshDatabase: 'billing',
    env: { CATALOG_CACHE_TTL_MS: '0', JOBS_ENABLED: 'false' },
  });
  let a: Tenant;
  let b: Tenant;
  let monthly10: Made;
  let monthly30: Made;
  let monthly50: Made;
  let yearly1000: Made;
  let now = new Date('2020-01-10T12:00:00.000Z');
  /** While an order is placed and paid: the orders module's own rules (stock holds) read the real time. */
  let ordering = false;
  const at = (iso: string) => (now = new Date(iso));
  const users = (x: Tenant, rest = '') => `/api/v2/sites/${x.siteName}/users${rest}`;
  const subs = () => ctx.t.db.getRepository(UserSubscriptionEntity);
  const entries = () => ctx.t.db.getRepository(SubscriptionEntryEntity);
  const jobs = () => ctx.t.app.get(SubscriptionJobsService);
  const lines = (subscriptionId: number) => entries().find({ where: { subscriptionId }, order: { id: 'ASC' } });
  const periodSum = async (subscriptionId: number) =>
    (await lines(subscriptionId)).filter((e) => e.kind !== 'charge').reduce((sum, e) => sum + e.amount, 0);
  /** The unused part of a plan at `at`, as docs/users.md words it: rounded to a minor unit. */
  const left = (amount: number, start: string, end: string, at: string) =>
    Math.round(amount * ((Date.parse(end) - Date.parse(at)) / (Date.parse(end) - Date.parse(start))));

  beforeAll(async () => {
    [a, b] = ctx.tenants;
    jest.spyOn(ctx.t.app.get(Clock), 'now').mockImplementation(() => (ordering ? new Date() : new Date(now.getTime())));
    const plan = (name: string, unitAmount: number, interval: string) =>
      makeProduct(a, { name, unitAmount, recurring: { interval, intervalCount: 1 } });
    monthly10 = await plan('Ten a month', 1000, 'month');
    monthly30 = await plan('Thirty a month', 3000, 'month');
    monthly50 = await plan('Fifty a month', 5000, 'month');
    yearly1000 = await plan('A thousand a year', 100000, 'year');
  });

  /** A paid order of `plan` for `email`, its subscription started (as the relay would) and a session of its user. */
  async function subscribed(
    email: string,
    plan: Made,
    quantity = 1,
  ): Promise<UserSubscriptionEntity & { auth: { authorization: string } }> {
    let orderId: number;
    ordering = true;
    try {
      const order = await makeOrder(a, [[plan.id, quantity]], { customer: { email } });
      await a.api
        .patch(ordersUrl(a, `/${order.id}/payment`))
        .send({ paymentStatus: 'paid' })
        .expect(200);
      orderId = order.id;
    } finally {
      ordering = false;
    }
    const [event] = await ctx.t.db.query<Array<{ id: string; payload: Record<string, unknown> }>>(
      `SELECT id, payload FROM outbox_events WHERE name = 'order.subscription_requested' AND site_id = $1
        AND (payload->>'orderId')::bigint = $2`,
      [a.siteId, orderId],
    );
    const sub = await ctx.t.db.transaction((em) =>
      jobs().startFromOrder(em, {
        id: Number(event.id),
        accountId: a.accountId,
        siteId: a.siteId,
        name: 'order.subscription_requested',
        payload: event.payload,
        createdAt: now,
      }),
    );
    const user = await ctx.t.db.getRepository(SiteUserEntity).findOneByOrFail({ id: sub!.userId });
    const { token } = await ctx.t.db.transaction((em) => ctx.t.app.get(SessionsService).create(em, user, {}));
    return Object.assign(sub!, { auth: { authorization: `Bearer ${token}` } });
  }

  const me = (rest: string) => users(a, `/me/subscriptions${rest}`);
  const op = (s: { userId: number; id: number }, rest: string) => users(a, `/${s.userId}/subscriptions/${s.id}${rest}`);
  const payUrl = (s: { userId: number; id: number }, chargeId: number) => op(s, `/charges/${chargeId}/pay`);
  /** The subscription's events after `after` (the period job also moves this file's other subscriptions). */
  const changes = async (after: number, subscriptionId: number) =>
    (await eventsOf(ctx.t, a, after))
      .filter((e) => Number(e.payload.subscriptionId ?? e.payload.id) === subscriptionId)
      .map((e) => [e.name, e.payload.change ?? e.payload.kind, e.payload.status]);

  it('issue #29 row 1: €10 monthly → €1,000 yearly is charged a full year (never with the user’s `prorate`); left unpaid, it ends with the dunning window', async () => {
    at('2020-01-10T12:00:00.000Z');
    const sub = await subscribed('row1@example.com', monthly10);
    expect(await lines(sub.id)).toEqual([
      expect.objectContaining({
        kind: 'initial',
        amount: 1000,
        status: 'paid',
        paidWith: 'order',
        creditApplied: 0,
        periodStart: new Date('2020-01-10T12:00:00.000Z'),
        periodEnd: new Date('2020-02-10T12:00:00.000Z'),
        paidAt: new Date('2020-01-10T12:00:00.000Z'),
      }),
    ]);

    at('2020-01-20T12:00:00.000Z');
    const before = await subs().findOneByOrFail({ id: sub.id });
    const refused = await request(ctx.t.server)
      .post(me(`/${sub.id}/change-plan`))
      .set(sub.auth)
      .send({ productId: yearly1000.id, prorate: false });
    expectProblem(refused, 400, 'validation_failed');
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'prorate' })]);
    expect(await subs().findOneByOrFail({ id: sub.id })).toEqual(before);
    expect(await entries().countBy({ subscriptionId: sub.id })).toBe(1);

    const after = await lastEventId(ctx.t);
    const res = await request(ctx.t.server)
      .post(me(`/${sub.id}/change-plan`))
      .set(sub.auth)
      .send({ productId: yearly1000.id })
      .expect(200);
    const credit = -left(1000, '2020-01-10T12:00:00.000Z', '2020-02-10T12:00:00.000Z', '2020-01-20T12:00:00.000Z');
    expect(credit).toBe(-677);
    expect(res.body.subscription).toEqual(
      expect.objectContaining({
        status: 'past_due',
        productId: yearly1000.id,
        unitAmount: 100000,
        interval: 'year',
        currentPeriodStart: '2020-01-20T12:00:00.000Z',
        currentPeriodEnd: '2021-01-20T12:00:00.000Z',
        balance: 0,
        unpaidCancelAt: '2020-02-03T12:00:00.000Z',
      }),
    );
    const line = { id: expect.any(Number), subscriptionId: sub.id, currency: 'EUR', description: expect.any(String) };
    expect(res.body.entries).toEqual([
      {
        ...line,
        kind: 'proration',
        amount: credit,
        status: 'recorded',
        paidWith: null,
        creditApplied: 0,
        periodStart: '2020-01-10T12:00:00.000Z',
        periodEnd: '2020-02-10T12:00:00.000Z',
        creditEntryId: null,
        processorChargeId: null,
        createdAt: ISO,
        paidAt: null,
      },
      {
        ...line,
        kind: 'renewal',
        amount: 100000,
        status: 'pending',
        paidWith: null,
        creditApplied: 677,
        periodStart: '2020-01-20T12:00:00.000Z',
        periodEnd: '2021-01-20T12:00:00.000Z',
        creditEntryId: null,
        processorChargeId: null,
        createdAt: ISO,
        paidAt: null,
      },
    ]);
    expect(await subs().findOneByOrFail({ id: sub.id })).toEqual(
      expect.objectContaining({ status: 'past_due', balance: 0, interval: 'year' }),
    );
    expect(await periodSum(sub.id)).toBe(1000 - 677 + 100000);
    expect(await changes(after, sub.id)).toEqual([
      ['user.subscription.updated', 'plan_changed', 'active'],
      ['user.subscription.charged', 'renewal', 'pending'],
      ['user.subscription.updated', 'payment_due', 'past_due'],
    ]);

    // Its charge still unpaid when the dunning window (14 days) ends, not the year: canceled,
    // `unpaid`, and no new period (issue #42 row 7; subscriptions-dunning.e2e-spec.ts).
    at('2020-02-03T12:00:00.000Z');
    const due = await lastEventId(ctx.t);
    await jobs().rollPeriods();
    expect(await subs().findOneByOrFail({ id: sub.id })).toEqual(
      expect.objectContaining({
        status: 'canceled',
        cancelReason: 'unpaid',
        canceledAt: new Date('2020-02-03T12:00:00.000Z'),
        currentPeriodEnd: new Date('2021-01-20T12:00:00.000Z'),
      }),
    );
    expect(await entries().countBy({ subscriptionId: sub.id })).toBe(3);
    expect(await changes(due, sub.id)).toEqual([['user.subscription.canceled', 'canceled_unpaid', 'canceled']]);
  });

  it('issue #29 row 2: a resume after the period lapsed starts a new period with its charge; inside the period it owes nothing', async () => {
    at('2020-03-01T00:00:00.000Z');
    const sub = await subscribed('row2@example.com', monthly10);
    const post = (action: string) =>
      request(ctx.t.server)
        .post(me(`/${sub.id}/${action}`))
        .set(sub.auth);
    await post('pause').expect(200);
    at('2020-03-10T00:00:00.000Z');
    expect((await post('resume').expect(200)).body).toEqual(
      expect.objectContaining({ status: 'active', currentPeriodStart: '2020-03-01T00:00:00.000Z' }),
    );
    expect(await entries().countBy({ subscriptionId: sub.id })).toBe(1);

    await post('pause').expect(200);
    // Paused past the period's end: the period job leaves it alone.
    at('2020-05-15T00:00:00.000Z');
    await jobs().rollPeriods();
    expect(await subs().findOneByOrFail({ id: sub.id })).toEqual(
      expect.objectContaining({ status: 'paused', currentPeriodEnd: new Date('2020-04-01T00:00:00.000Z') }),
    );
    const after = await lastEventId(ctx.t);
    const resumed = await post('resume').expect(200);
    expect(resumed.body).toEqual(
      expect.objectContaining({
        status: 'past_due',
        currentPeriodStart: '2020-05-15T00:00:00.000Z',
        currentPeriodEnd: '2020-06-15T00:00:00.000Z',
      }),
    );
    const renewal = (await lines(sub.id))[1];
    expect(renewal).toEqual(
      expect.objectContaining({
        kind: 'renewal',
        amount: 1000,
        status: 'pending',
        periodStart: new Date('2020-05-15T00:00:00.000Z'),
        periodEnd: new Date('2020-06-15T00:00:00.000Z'),
      }),
    );
    expect(await changes(after, sub.id)).toEqual([
      ['user.subscription.updated', 'resumed', 'active'],
      ['user.subscription.charged', 'renewal', 'pending'],
      ['user.subscription.updated', 'payment_due', 'past_due'],
    ]);

    // Paid outside Sitebase, said by the operator: active again.
    at('2020-05-16T00:00:00.000Z');
    const paid = await a.api
      .post(payUrl(sub, renewal.id))
      .send({ paidOutOfBand: true, reference: 'Transfer 4411' })
      .expect(200);
    expect(paid.body).toEqual({
      charge: expect.objectContaining({
        id: renewal.id,
        status: 'paid',
        paidWith: 'out_of_band',
        processorChargeId: 'Transfer 4411',
        paidAt: '2020-05-16T00:00:00.000Z',
      }),
      subscription: expect.objectContaining({ id: sub.id, status: 'active' }),
      creditBalance: null,
    });
    expect(await subs().findOneByOrFail({ id: sub.id })).toEqual(expect.objectContaining({ status: 'active' }));
    expect(await periodSum(sub.id)).toBe(2000);
  });

  it('an operator’s `prorate: false` on the same interval owes nothing now; the next renewal is at the new price', async () => {
    at('2020-06-01T00:00:00.000Z');
    const sub = await subscribed('quiet@example.com', monthly30);
    at('2020-06-16T00:00:00.000Z');
    const after = await lastEventId(ctx.t);
    const res = await a.api.post(op(sub, '/change-plan')).send({ productId: monthly50.id, prorate: false }).expect(200);
    expect(res.body).toEqual({
      subscription: expect.objectContaining({
        status: 'active',
        unitAmount: 5000,
        currentPeriodStart: '2020-06-01T00:00:00.000Z',
        currentPeriodEnd: '2020-07-01T00:00:00.000Z',
        balance: 0,
      }),
      prorations: [],
      entries: [],
    });
    expect(await entries().countBy({ subscriptionId: sub.id })).toBe(1);
    expect(await changes(after, sub.id)).toEqual([['user.subscription.updated', 'plan_changed', 'active']]);

    at('2020-07-01T00:00:00.000Z');
    await jobs().rollPeriods();
    expect((await lines(sub.id))[1]).toEqual(
      expect.objectContaining({
        kind: 'renewal',
        amount: 5000,
        status: 'pending',
        periodStart: new Date('2020-07-01T00:00:00.000Z'),
        periodEnd: new Date('2020-08-01T00:00:00.000Z'),
      }),
    );
    expect((await subs().findOneByOrFail({ id: sub.id })).status).toBe('past_due');
  });

  it('an operator’s new billing interval is charged in full even with `prorate: false`', async () => {
    at('2020-06-01T00:00:00.000Z');
    const sub = await subscribed('interval@example.com', monthly10);
    at('2020-06-11T00:00:00.000Z');
    const res = await a.api
      .post(op(sub, '/change-plan'))
      .send({ productId: yearly1000.id, prorate: false })
      .expect(200);
    // A renewal is not a proration: the old field keeps meaning what it did.
    expect(res.body.prorations).toEqual([]);
    expect(res.body.entries).toEqual([
      expect.objectContaining({ kind: 'renewal', amount: 100000, status: 'pending', creditApplied: 0 }),
    ]);
    expect(res.body.subscription).toEqual(
      expect.objectContaining({ status: 'past_due', currentPeriodStart: '2020-06-11T00:00:00.000Z' }),
    );
  });

  it('a downgrade credits the balance, which pays the new part and then the next renewal', async () => {
    at('2020-09-01T00:00:00.000Z');
    const sub = await subscribed('downgrade@example.com', monthly30, 3);
    at('2020-09-16T00:00:00.000Z');
    const res = await request(ctx.t.server)
      .post(me(`/${sub.id}/change-plan`))
      .set(sub.auth)
      .send({ productId: monthly30.id, quantity: 1 })
      .expect(200);
    // Half of a 30-day period is left: 4,500 of 9,000 back, 1,500 for the new plan, from the balance.
    expect(res.body.entries).toEqual([
      expect.objectContaining({ kind: 'proration', amount: -4500, status: 'recorded', creditApplied: 0 }),
      expect.objectContaining({
        kind: 'proration',
        amount: 1500,
        status: 'paid',
        paidWith: 'balance',
        creditApplied: 1500,
        paidAt: '2020-09-16T00:00:00.000Z',
      }),
    ]);
    expect(res.body.subscription).toEqual(expect.objectContaining({ status: 'active', balance: 3000, quantity: 1 }));

    at('2020-10-01T00:00:00.000Z');
    const after = await lastEventId(ctx.t);
    await jobs().rollPeriods();
    expect((await lines(sub.id))[3]).toEqual(
      expect.objectContaining({
        kind: 'renewal',
        amount: 3000,
        status: 'paid',
        paidWith: 'balance',
        creditApplied: 3000,
        periodStart: new Date('2020-10-01T00:00:00.000Z'),
      }),
    );
    expect(await subs().findOneByOrFail({ id: sub.id })).toEqual(
      expect.objectContaining({ status: 'active', balance: 0 }),
    );
    expect(await periodSum(sub.id)).toBe(9000 - 4500 + 1500 + 3000);
    expect(await changes(after, sub.id)).toEqual([
      ['user.subscription.updated', 'renewed', 'active'],
      ['user.subscription.charged', 'renewal', 'paid'],
    ]);
  });

  it('in a trial the plan swaps with nothing owed and the trial period stays', async () => {
    at('2020-04-01T00:00:00.000Z');
    const sub = await subscribed('trial@example.com', monthly10);
    await subs().update({ id: sub.id }, { status: 'trialing', trialEndsAt: new Date('2020-05-01T00:00:00.000Z') });
    at('2020-04-10T00:00:00.000Z');
    const res = await request(ctx.t.server)
      .post(me(`/${sub.id}/change-plan`))
      .set(sub.auth)
      .send({ productId: yearly1000.id })
      .expect(200);
    expect(res.body).toEqual({
      subscription: expect.objectContaining({
        status: 'trialing',
        interval: 'year',
        currentPeriodStart: '2020-04-01T00:00:00.000Z',
        currentPeriodEnd: '2020-05-01T00:00:00.000Z',
        trialEndsAt: '2020-05-01T00:00:00.000Z',
      }),
      prorations: [],
      entries: [],
    });
    // The trial ends: the first paid period is the new plan's.
    at('2020-05-01T00:00:00.000Z');
    await jobs().rollPeriods();
    expect((await lines(sub.id))[1]).toEqual(
      expect.objectContaining({ kind: 'renewal', amount: 100000, periodEnd: new Date('2021-05-01T00:00:00.000Z') }),
    );
  });

  describe('POST …/subscriptions/{subId}/charges/{chargeId}/pay', () => {
    it('pays a pending charge from credits (all or nothing), once; a paid line or a credit is a 409', async () => {
      at('2020-11-01T00:00:00.000Z');
      const sub = await subscribed('payer@example.com', monthly30);
      at('2020-12-01T00:00:00.000Z');
      await jobs().rollPeriods();
      const renewal = (await lines(sub.id))[1];
      expect(renewal).toEqual(expect.objectContaining({ kind: 'renewal', amount: 3000, status: 'pending' }));
      expect((await subs().findOneByOrFail({ id: sub.id })).status).toBe('past_due');

      // Neither way: the processor is asked again (the manual one leaves it pending).
      const again = await a.api.post(payUrl(sub, renewal.id)).expect(200);
      expect(again.body).toEqual({
        charge: expect.objectContaining({ id: renewal.id, status: 'pending', paidAt: null }),
        subscription: expect.objectContaining({ status: 'past_due' }),
        creditBalance: null,
      });

      await a.api
        .post(users(a, `/${sub.userId}/credits/grant`))
        .send({ amount: 1000, reason: 'Welcome' })
        .expect(201);
      const short = await a.api.post(payUrl(sub, renewal.id)).send({ payWithCredits: true });
      expectProblem(short, 409, 'insufficient_credits');
      expect(await entries().findOneByOrFail({ id: renewal.id })).toEqual(renewal);
      expect((await a.api.get(users(a, `/${sub.userId}/credits/balance`)).expect(200)).body).toEqual({ balance: 1000 });

      await a.api
        .post(users(a, `/${sub.userId}/credits/grant`))
        .send({ amount: 2500, reason: 'Top-up' })
        .expect(201);
      const after = await lastEventId(ctx.t);
      const paid = await a.api
        .post(payUrl(sub, renewal.id))
        .set('Idempotency-Key', 'pay-renewal-1')
        .send({ payWithCredits: true })
        .expect(200);
      expect(paid.body).toEqual({
        charge: {
          id: renewal.id,
          subscriptionId: sub.id,
          kind: 'renewal',
          amount: 3000,
          currency: 'EUR',
          description: 'Period 2020-12-01 to 2021-01-01',
          status: 'paid',
          paidWith: 'credits',
          creditApplied: 0,
          periodStart: '2020-12-01T00:00:00.000Z',
          periodEnd: '2021-01-01T00:00:00.000Z',
          creditEntryId: expect.any(Number),
          processorChargeId: null,
          createdAt: ISO,
          paidAt: '2020-12-01T00:00:00.000Z',
        },
        subscription: expect.objectContaining({ id: sub.id, status: 'active' }),
        creditBalance: 500,
      });
      const replay = await a.api
        .post(payUrl(sub, renewal.id))
        .set('Idempotency-Key', 'pay-renewal-1')
        .send({ payWithCredits: true })
        .expect(200);
      expect(replay.body).toEqual(paid.body);
      expect(
        await ctx.t.db.getRepository(CreditEntryEntity).findOneByOrFail({ id: paid.body.charge.creditEntryId }),
      ).toEqual(
        expect.objectContaining({ kind: 'spend', amount: -3000, reference: `subscription-charge:${renewal.id}` }),
      );
      expect(await subs().findOneByOrFail({ id: sub.id })).toEqual(expect.objectContaining({ status: 'active' }));
      expect(
        (await eventsOf(ctx.t, a, after))
          .filter((e) => e.name.startsWith('credits.') || e.payload.userId === sub.userId)
          .map((e) => [e.name, e.payload.change ?? e.payload.status]),
      ).toEqual([
        ['credits.spent', undefined],
        ['user.subscription.charged', 'paid'],
        ['user.subscription.updated', 'payment_received'],
      ]);

      // Paid already, or the initial line, or a credit: nothing to pay.
      const initial = (await lines(sub.id))[0];
      expectProblem(
        await a.api.post(payUrl(sub, renewal.id)).send({ paidOutOfBand: true }),
        409,
        'transition_forbidden',
      );
      expectProblem(await a.api.post(payUrl(sub, initial.id)), 409, 'transition_forbidden');
      at('2020-12-16T00:00:00.000Z');
      const down = await a.api.post(op(sub, '/change-plan')).send({ productId: monthly10.id }).expect(200);
      const credit = down.body.entries[0] as { id: number; status: string };
      expect(credit.status).toBe('recorded');
      expectProblem(await a.api.post(payUrl(sub, credit.id)), 409, 'transition_forbidden');
      expect(await entries().findOneByOrFail({ id: credit.id })).toEqual(
        expect.objectContaining({ status: 'recorded', paidAt: null }),
      );
    });

    it('bad bodies are 400s; other subscriptions’, sites’ and callers’ are 404, 401 and 403', async () => {
      at('2021-02-01T00:00:00.000Z');
      const sub = await subscribed('payaccess@example.com', monthly10);
      const other = await subscribed('payother@example.com', monthly10);
      const charge = await a.api.post(op(sub, '/charges')).send({ amount: 700, description: 'Setup' }).expect(201);
      const chargeId = charge.body.charge.id as number;
      for (const [body, path] of [
        [{ payWithCredits: true, paidOutOfBand: true }, 'paidOutOfBand'],
        [{ reference: 'Transfer 1' }, 'reference'],
        [{ paidOutOfBand: true, reference: 'x'.repeat(201) }, 'reference'],
        [{ paidOutOfBand: 'yes' }, 'paidOutOfBand'],
        [{ paidOutOfBand: true, amount: 5 }, 'amount'],
      ] as const) {
        const res = await a.api.post(payUrl(sub, chargeId)).send(body);
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors).toEqual([expect.objectContaining({ path })]);
      }
      // Another subscription's line, a line that does not exist, another site's key.
      const otherInitial = (await lines(other.id))[0];
      expectProblem(await a.api.post(payUrl(sub, otherInitial.id)), 404, 'not_found');
      expectProblem(await a.api.post(payUrl(other, chargeId)), 404, 'not_found');
      expectProblem(await a.api.post(payUrl(sub, 999_999_999)), 404, 'not_found');
      expectProblem(
        await b.api.post(users(b, `/${sub.userId}/subscriptions/${sub.id}/charges/${chargeId}/pay`)),
        404,
        'not_found',
      );
      expectProblem(await request(ctx.t.server).post(payUrl(sub, chargeId)), 401, 'missing_credential');
      expectProblem(await request(ctx.t.server).post(payUrl(sub, chargeId)).set(sub.auth), 403, 'session_not_allowed');
      expect(await entries().findOneByOrFail({ id: chargeId })).toEqual(
        expect.objectContaining({ status: 'pending', paidAt: null }),
      );

      // An ad-hoc charge paid: its event, and the status (never changed by it) stays.
      const after = await lastEventId(ctx.t);
      const paid = await a.api.post(payUrl(sub, chargeId)).send({ paidOutOfBand: true }).expect(200);
      expect(paid.body.charge).toEqual(
        expect.objectContaining({ kind: 'charge', status: 'paid', paidWith: 'out_of_band', processorChargeId: null }),
      );
      expect(paid.body.subscription.status).toBe('active');
      expect(await changes(after, sub.id)).toEqual([['user.subscription.charged', 'charge', 'paid']]);
      expect(await periodSum(sub.id)).toBe(1000);
    });
  });
});
