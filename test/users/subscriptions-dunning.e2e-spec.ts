import request from 'supertest';
import { Clock } from '../../src/common/scheduling/clock';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { SubscriptionEntryEntity } from '../../src/users/entities/subscription-entry.entity';
import { UserSubscriptionEntity } from '../../src/users/entities/user-subscription.entity';
import { SessionsService } from '../../src/users/auth/sessions.service';
import { SubscriptionJobsService } from '../../src/users/subscriptions/subscription-jobs.service';
import { makeProduct, Made } from '../support/commerce';
import { eventsOf, lastEventId } from '../support/events';
import { expectSettingsRefused } from '../support/site-settings';
import { expectProblem } from '../support/problem';
import { Tenant, withTenants } from '../support/tenant';

/**
 * The dunning window (docs/users.md, "Subscriptions"; issue #42 row 7): a period charge left
 * unpaid cancels the subscription `dunningDays` after it fell due (the site's setting, 14 by
 * default), whatever the period's length, or at the period's end if sooner. Jobs are off and
 * the Clock is the test's: the period job runs when the test says.
 */
describe('site users: subscriptions, the dunning window', () => {
  const ctx = withTenants(2, {
    freshDatabase: 'dunning',
    env: { CATALOG_CACHE_TTL_MS: '0', JOBS_ENABLED: 'false' },
  });
  let a: Tenant;
  let b: Tenant;
  let now = new Date('2022-01-10T12:00:00.000Z');
  let line = 0;
  const at = (iso: string) => (now = new Date(iso));
  const subs = () => ctx.t.db.getRepository(UserSubscriptionEntity);
  const entries = () => ctx.t.db.getRepository(SubscriptionEntryEntity);
  const jobs = () => ctx.t.app.get(SubscriptionJobsService);
  const siteUrl = (x: Tenant) => `/api/v2/sites/${x.siteName}`;
  const me = (x: Tenant, rest = '') => `${siteUrl(x)}/users/me/subscriptions${rest}`;
  const op = (x: Tenant, s: { userId: number; id: number }, rest: string) =>
    `${siteUrl(x)}/users/${s.userId}/subscriptions/${s.id}${rest}`;
  const plans = new Map<Tenant, { monthly: Made; yearly: Made }>();

  beforeAll(async () => {
    [a, b] = ctx.tenants;
    jest.spyOn(ctx.t.app.get(Clock), 'now').mockImplementation(() => new Date(now.getTime()));
    for (const x of [a, b])
      plans.set(x, {
        monthly: await makeProduct(x, {
          name: 'Ten a month',
          unitAmount: 1000,
          recurring: { interval: 'month', intervalCount: 1 },
        }),
        yearly: await makeProduct(x, {
          name: 'A thousand a year',
          unitAmount: 100000,
          recurring: { interval: 'year', intervalCount: 1 },
        }),
      });
  });

  /** A subscription of `plan` started now for a new user of `x` (as a paid order's would be), and a session of that user. */
  async function subscribed(
    x: Tenant,
    plan: 'monthly' | 'yearly',
  ): Promise<UserSubscriptionEntity & { auth: { authorization: string } }> {
    line += 1;
    const product = plans.get(x)![plan];
    const user = await ctx.t.db
      .getRepository(SiteUserEntity)
      .save({ siteId: x.siteId, email: `dunning${line}@example.com`, name: 'Dunning', status: 'active', metadata: {} });
    const sub = await ctx.t.db.transaction((em) =>
      jobs().startFromOrder(em, {
        id: line,
        accountId: x.accountId,
        siteId: x.siteId,
        name: 'order.subscription_requested',
        payload: {
          orderId: 1e12 + line,
          orderNumber: line,
          userId: user.id,
          lineId: 1e12 + line,
          productId: product.id,
          variantId: null,
          quantity: 1,
          interval: plan === 'monthly' ? 'month' : 'year',
          intervalCount: 1,
          unitAmount: product.unitAmount,
          currency: 'EUR',
        },
        createdAt: now,
      }),
    );
    const { token } = await ctx.t.db.transaction((em) => ctx.t.app.get(SessionsService).create(em, user, {}));
    return Object.assign(sub!, { auth: { authorization: `Bearer ${token}` } });
  }

  /** The user moves to the yearly plan with their own session; the manual processor leaves its charge pending. */
  async function toYearly(x: Tenant, sub: UserSubscriptionEntity & { auth: { authorization: string } }) {
    const res = await request(ctx.t.server)
      .post(me(x, `/${sub.id}/change-plan`))
      .set(sub.auth)
      .send({ productId: plans.get(x)!.yearly.id })
      .expect(200);
    return res.body as {
      subscription: Record<string, unknown>;
      entries: Array<{ id: number; kind: string; status: string }>;
    };
  }

  /** The subscription's events after `after`, as [name, change, previousStatus, status]. */
  const changes = async (x: Tenant, after: number, id: number) =>
    (await eventsOf(ctx.t, x, after))
      .filter((e) => e.name.startsWith('user.subscription.') && Number(e.payload.subscriptionId ?? e.payload.id) === id)
      .map((e) => [e.name, e.payload.change ?? e.payload.kind, e.payload.previousStatus, e.payload.status]);

  it('issue #42 row 7: monthly → yearly left unpaid is canceled `unpaid` 14 days later, not when the year ends; its entitlement is gone', async () => {
    at('2022-01-10T12:00:00.000Z');
    const sub = await subscribed(a, 'monthly');
    at('2022-01-20T12:00:00.000Z');
    const changed = await toYearly(a, sub);
    expect(changed.subscription).toEqual(
      expect.objectContaining({
        status: 'past_due',
        interval: 'year',
        currentPeriodStart: '2022-01-20T12:00:00.000Z',
        currentPeriodEnd: '2023-01-20T12:00:00.000Z',
        unpaidCancelAt: '2022-02-03T12:00:00.000Z',
      }),
    );
    const renewal = changed.entries.find((e) => e.kind === 'renewal')!;
    expect(renewal.status).toBe('pending');

    // The last moment of the window: still past due.
    at('2022-02-03T11:59:59.999Z');
    await jobs().rollPeriods();
    expect(await subs().findOneByOrFail({ id: sub.id })).toEqual(
      expect.objectContaining({ status: 'past_due', unpaidCancelAt: new Date('2022-02-03T12:00:00.000Z') }),
    );

    // 15 days after the change, the period job: canceled `unpaid` at the window's end, no new period.
    at('2022-02-04T12:00:00.000Z');
    const after = await lastEventId(ctx.t);
    const linesBefore = await entries().countBy({ subscriptionId: sub.id });
    expect(await jobs().rollPeriods()).toBeGreaterThanOrEqual(1);
    expect(await subs().findOneByOrFail({ id: sub.id })).toEqual(
      expect.objectContaining({
        status: 'canceled',
        cancelReason: 'unpaid',
        canceledAt: new Date('2022-02-03T12:00:00.000Z'),
        unpaidCancelAt: null,
        currentPeriodEnd: new Date('2023-01-20T12:00:00.000Z'),
      }),
    );
    expect(await entries().countBy({ subscriptionId: sub.id })).toBe(linesBefore);
    expect((await entries().findOneByOrFail({ id: renewal.id })).status).toBe('pending');
    expect(await changes(a, after, sub.id)).toEqual([
      ['user.subscription.canceled', 'canceled_unpaid', 'past_due', 'canceled'],
    ]);

    // The entitlement is gone: the user's own list holds it canceled, nothing past due or active, and nothing moves it.
    const mine = await request(ctx.t.server).get(me(a)).set(sub.auth).expect(200);
    expect(mine.body.data).toEqual([
      expect.objectContaining({ id: sub.id, status: 'canceled', cancelReason: 'unpaid', unpaidCancelAt: null }),
    ]);
    for (const status of ['past_due', 'active'])
      expect((await request(ctx.t.server).get(me(a)).query({ status }).set(sub.auth).expect(200)).body.data).toEqual(
        [],
      );
    for (const action of ['pause', 'resume'])
      expectProblem(
        await request(ctx.t.server)
          .post(me(a, `/${sub.id}/${action}`))
          .set(sub.auth),
        409,
        'transition_forbidden',
      );
    // A second run finds nothing more to do with it.
    const again = await lastEventId(ctx.t);
    await jobs().rollPeriods();
    expect(await changes(a, again, sub.id)).toEqual([]);
  });

  it('paid within the window, it is active again and runs its year', async () => {
    at('2022-03-01T00:00:00.000Z');
    const sub = await subscribed(a, 'monthly');
    at('2022-03-05T00:00:00.000Z');
    const changed = await toYearly(a, sub);
    expect(changed.subscription).toEqual(
      expect.objectContaining({ status: 'past_due', unpaidCancelAt: '2022-03-19T00:00:00.000Z' }),
    );
    const renewal = changed.entries.find((e) => e.kind === 'renewal')!;

    at('2022-03-15T00:00:00.000Z');
    const after = await lastEventId(ctx.t);
    const paid = await a.api
      .post(op(a, sub, `/charges/${renewal.id}/pay`))
      .send({ paidOutOfBand: true })
      .expect(200);
    expect(paid.body.subscription).toEqual(expect.objectContaining({ status: 'active', unpaidCancelAt: null }));
    expect(await changes(a, after, sub.id)).toEqual([
      ['user.subscription.charged', 'renewal', undefined, 'paid'],
      ['user.subscription.updated', 'payment_received', 'past_due', 'active'],
    ]);

    // Past the old window's end, and months later: still active, on the year it paid for.
    for (const iso of ['2022-03-20T00:00:00.000Z', '2022-09-01T00:00:00.000Z']) {
      at(iso);
      await jobs().rollPeriods();
      expect(await subs().findOneByOrFail({ id: sub.id })).toEqual(
        expect.objectContaining({
          status: 'active',
          cancelReason: null,
          unpaidCancelAt: null,
          currentPeriodStart: new Date('2022-03-05T00:00:00.000Z'),
          currentPeriodEnd: new Date('2023-03-05T00:00:00.000Z'),
        }),
      );
    }
  });

  it('the window is the site’s `dunningDays`, for a yearly renewal too; another site keeps its own', async () => {
    at('2022-04-01T00:00:00.000Z');
    const yearly = await subscribed(b, 'yearly');
    const other = await subscribed(a, 'yearly');
    const set = await b.api
      .patch(siteUrl(b))
      .send({ settings: { subscriptions: { dunningDays: 3 } } })
      .expect(200);
    expect(set.body.settings.subscriptions).toEqual({ dunningDays: 3 });
    expect((await a.api.get(siteUrl(a)).expect(200)).body.settings.subscriptions).toEqual({ dunningDays: 14 });

    // The year ends: its renewal is left pending, and the site's window starts.
    at('2023-04-01T00:00:00.000Z');
    await jobs().rollPeriods();
    expect(await subs().findOneByOrFail({ id: yearly.id })).toEqual(
      expect.objectContaining({
        status: 'past_due',
        currentPeriodEnd: new Date('2024-04-01T00:00:00.000Z'),
        unpaidCancelAt: new Date('2023-04-04T00:00:00.000Z'),
      }),
    );
    expect(await subs().findOneByOrFail({ id: other.id })).toEqual(
      expect.objectContaining({ status: 'past_due', unpaidCancelAt: new Date('2023-04-15T00:00:00.000Z') }),
    );
    // A later change of the setting applies to charges that fall due after it.
    await b.api
      .patch(siteUrl(b))
      .send({ settings: { subscriptions: { dunningDays: 30 } } })
      .expect(200);

    at('2023-04-04T00:00:00.000Z');
    const after = await lastEventId(ctx.t);
    await jobs().rollPeriods();
    expect(await subs().findOneByOrFail({ id: yearly.id })).toEqual(
      expect.objectContaining({ status: 'canceled', cancelReason: 'unpaid', canceledAt: now }),
    );
    expect(await changes(b, after, yearly.id)).toEqual([
      ['user.subscription.canceled', 'canceled_unpaid', 'past_due', 'canceled'],
    ]);
    expect((await subs().findOneByOrFail({ id: other.id })).status).toBe('past_due');

    // null gives the site the default back.
    const cleared = await b.api
      .patch(siteUrl(b))
      .send({ settings: { subscriptions: { dunningDays: null } } })
      .expect(200);
    expect(cleared.body.settings.subscriptions).toEqual({ dunningDays: 14 });
  });

  it('`dunningDays` is a whole number of days from 1 to 60; anything else is a 400 naming it and changes nothing', async () => {
    await expectSettingsRefused(ctx.t, b, 'subscriptions', [
      { dunningDays: 0 },
      { dunningDays: 61 },
      { dunningDays: 2.5 },
      { dunningDays: '14' },
      { dunningDays: true },
      { dunningDays: -1 },
      { graceDays: 3 },
    ]);
    for (const dunningDays of [1, 60])
      expect(
        (
          await b.api
            .patch(siteUrl(b))
            .send({ settings: { subscriptions: { dunningDays } } })
            .expect(200)
        ).body.settings.subscriptions,
      ).toEqual({ dunningDays });
  });
});
