import fc from 'fast-check';
import { Clock } from '../../src/common/scheduling/clock';
import { ConflictProblem } from '../../src/common/errors/problems';
import { SiteEntity } from '../../src/common/tenancy/entities/site.entity';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { SubscriptionEntryEntity } from '../../src/users/entities/subscription-entry.entity';
import { UserSubscriptionEntity } from '../../src/users/entities/user-subscription.entity';
import { PaymentProcessors } from '../../src/users/subscriptions/payment-processors.service';
import { SubscriptionChargesService } from '../../src/users/subscriptions/subscription-charges.service';
import { SubscriptionJobsService } from '../../src/users/subscriptions/subscription-jobs.service';
import { UserSubscriptionsService } from '../../src/users/subscriptions/user-subscriptions.service';
import { makeProduct } from '../support/commerce';
import { withTenants } from '../support/tenant';

const SEED = 29;
const RUNS = 500;
const DAY = 86_400_000;

type Interval = 'day' | 'week' | 'month' | 'year';
interface Plan {
  id: number;
  unit: number;
  interval: Interval;
  count: number;
}
type Status = 'active' | 'past_due' | 'paused' | 'canceled';

type Action =
  | { t: 'change'; by: 'user' | 'operator'; plan: number; quantity: number; prorate: boolean; pays: boolean }
  | { t: 'pause' | 'resume' | 'cancel' | 'cancelAtEnd' | 'payOutOfBand'; pays: boolean }
  | { t: 'advance'; ms: number; pays: boolean };

interface Scenario {
  plan: number;
  quantity: number;
  processor: 'manual' | 'fake';
  /** The site's `subscriptions.dunningDays`; null: unset (14). */
  dunningDays: number | null;
  startOffset: number;
  actions: Action[];
}

/** This test's own calendar: `t` plus `count` intervals in UTC, a month from the 31st ending on the month's last day. */
function addPeriod(t: number, interval: Interval, count: number): number {
  if (interval === 'day' || interval === 'week') return t + (interval === 'day' ? 1 : 7) * count * DAY;
  const d = new Date(t);
  const months = d.getUTCMonth() + (interval === 'month' ? count : 12 * count);
  const year = d.getUTCFullYear() + Math.floor(months / 12);
  const month = months % 12;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(
    year,
    month,
    Math.min(d.getUTCDate(), last),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
    d.getUTCMilliseconds(),
  );
}

/**
 * The test's model of one subscription's timeline: its plan, status, periods, what they cost
 * (each period's price, and a prorated change's credit and charge of the time left, rounded to
 * a minor unit), the balance owed to the customer, the period charges left unpaid and when the
 * dunning window ends (`window` ms after the first fell due, or the period's end if sooner).
 * Written from docs/users.md, not from the server's code.
 */
class Model {
  status: Status = 'active';
  start: number;
  end: number;
  balance = 0;
  unpaid = 0;
  cost: number;
  cancelAtEnd = false;
  periods: Array<[number, number]>;
  unpaidCancelAt: number | null = null;
  canceledAt: number | null = null;
  cancelReason: string | null = null;

  constructor(
    public plan: Plan,
    public quantity: number,
    private readonly processor: 'manual' | 'fake',
    at: number,
    private readonly window: number,
  ) {
    this.start = at;
    this.end = addPeriod(at, plan.interval, plan.count);
    this.periods = [[this.start, this.end]];
    this.cost = this.price;
  }

  get price(): number {
    return this.plan.unit * this.quantity;
  }

  /**
   * Collects a period charge at `at`: the balance first, then the processor; unpaid, the
   * subscription is past due until the window's end (or the period's, if sooner).
   */
  private collect(amount: number, pays: boolean, at: number): void {
    this.cost += amount;
    const applied = Math.min(this.balance, amount);
    this.balance -= applied;
    const paid = amount - applied === 0 || (this.processor === 'fake' && pays);
    if (!paid) {
      this.unpaid += 1;
      if (this.status !== 'past_due') this.unpaidCancelAt = Math.min(at + this.window, this.end);
      this.status = 'past_due';
    }
  }

  /** A period from `from`, its charge collected at `at` (the period job may run after the period began). */
  private newPeriod(from: number, pays: boolean, at: number): void {
    this.start = from;
    this.end = addPeriod(from, this.plan.interval, this.plan.count);
    this.periods.push([this.start, this.end]);
    this.status = 'active';
    this.collect(this.price, pays, at);
  }

  private canceled(at: number, reason: string | null): void {
    this.status = 'canceled';
    this.canceledAt = at;
    this.cancelAtEnd = false;
    this.unpaidCancelAt = null;
    if (reason) this.cancelReason = reason;
  }

  /** Answers the refusal's code, or null when the change happens. */
  change(plan: Plan, quantity: number, prorate: boolean, at: number, pays: boolean): string | null {
    if (this.status !== 'active') return 'transition_forbidden';
    if (plan.id === this.plan.id && quantity === this.quantity) return 'plan_unchanged';
    const total = this.end - this.start;
    const fraction = total > 0 ? Math.min(Math.max(this.end - at, 0), total) / total : 0;
    const newInterval = plan.interval !== this.plan.interval || plan.count !== this.plan.count;
    const credit = prorate ? Math.round(this.price * fraction) : 0;
    this.cost -= credit;
    this.balance += credit;
    this.plan = plan;
    this.quantity = quantity;
    if (newInterval) this.newPeriod(at, pays, at);
    else if (prorate) {
      const rest = Math.round(this.price * fraction);
      if (rest !== 0) this.collect(rest, pays, at);
    }
    return null;
  }

  pause(): string | null {
    if (this.status !== 'active') return 'transition_forbidden';
    this.status = 'paused';
    return null;
  }

  resume(at: number, pays: boolean): string | null {
    if (this.status !== 'paused') return 'transition_forbidden';
    if (this.end <= at) this.newPeriod(at, pays, at);
    else this.status = 'active';
    return null;
  }

  cancel(at: number): string | null {
    if (this.status === 'canceled') return 'transition_forbidden';
    this.canceled(at, null);
    return null;
  }

  cancelAtPeriodEnd(): string | null {
    if (this.status !== 'active' || this.cancelAtEnd) return 'transition_forbidden';
    this.cancelAtEnd = true;
    return null;
  }

  payOne(): void {
    this.unpaid -= 1;
    if (this.unpaid === 0 && this.status === 'past_due') {
      this.status = 'active';
      this.unpaidCancelAt = null;
    }
  }

  /** The period job at `at`: the dunning window's end first, then the periods that ended. */
  roll(at: number, pays: boolean): void {
    if (this.status === 'past_due' && this.unpaidCancelAt !== null && this.unpaidCancelAt <= at)
      return this.canceled(this.unpaidCancelAt, 'unpaid');
    while (this.end <= at) {
      if (this.status === 'past_due' && this.unpaid > 0)
        return this.canceled(this.unpaidCancelAt ?? this.end, 'unpaid');
      if (this.status !== 'active' && this.status !== 'past_due') return;
      if (this.cancelAtEnd) return this.canceled(this.end, null);
      this.newPeriod(this.end, pays, at);
    }
  }
}

/**
 * Property-based: random plans and random sequences of the owner's and the operator's actions
 * (plan changes between intervals of a day to a year among them), payments out of band and
 * clock moves (each followed by the period job), under a random dunning window, driven through
 * the service with the Clock moved by jest.spyOn. After every step the ledger must match the
 * model (docs/users.md, "Subscriptions": no period without its charge; the ledger balances),
 * and, whatever the model says, no period charge of any length stays unpaid beyond the window
 * (issue #42 row 7).
 */
describe('subscription ledger: properties over random action sequences', () => {
  const ctx = withTenants(1, {
    freshDatabase: 'ledger',
    env: { CATALOG_CACHE_TTL_MS: '0', JOBS_ENABLED: 'false' },
  });
  const plans: Plan[] = [];
  let userId: number;
  let now = 0;
  let pays = false;
  let line = 0;
  const service = () => ctx.t.app.get(UserSubscriptionsService);
  const charges = () => ctx.t.app.get(SubscriptionChargesService);
  const jobs = () => ctx.t.app.get(SubscriptionJobsService);
  const site = () => ({
    id: ctx.tenants[0].siteId,
    name: ctx.tenants[0].siteName,
    accountId: ctx.tenants[0].accountId,
  });

  beforeAll(async () => {
    const t = ctx.tenants[0];
    jest.spyOn(ctx.t.app.get(Clock), 'now').mockImplementation(() => new Date(now));
    ctx.t.app.get(PaymentProcessors).register({
      name: 'fake',
      charge: () => Promise.resolve({ status: pays ? 'paid' : 'pending', processorChargeId: null }),
    });
    for (const [unit, interval, count] of [
      [1000, 'month', 1],
      [2500, 'month', 1],
      [999, 'month', 3],
      [7, 'month', 1],
      [10000, 'year', 1],
      [700, 'week', 2],
      [300, 'day', 5],
    ] as const) {
      const made = await makeProduct(t, {
        name: `Plan ${unit}/${count} ${interval}`,
        unitAmount: unit,
        recurring: { interval, intervalCount: count },
      });
      plans.push({ id: made.id, unit, interval, count });
    }
    const user = await ctx.t.db
      .getRepository(SiteUserEntity)
      .save({ siteId: t.siteId, email: 'ledger@example.com', name: 'Ledger', status: 'active', metadata: {} });
    userId = user.id;
  });

  const pick = fc.integer({ min: 0, max: 6 });
  const action: fc.Arbitrary<Action> = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        t: fc.constant('change' as const),
        by: fc.constantFrom('user' as const, 'operator' as const),
        plan: pick,
        quantity: fc.integer({ min: 1, max: 3 }),
        prorate: fc.boolean(),
        pays: fc.boolean(),
      }),
    },
    {
      weight: 4,
      arbitrary: fc.record({
        t: fc.constantFrom('pause' as const, 'resume' as const, 'cancelAtEnd' as const, 'payOutOfBand' as const),
        pays: fc.boolean(),
      }),
    },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('cancel' as const), pays: fc.boolean() }) },
    {
      weight: 5,
      arbitrary: fc.record({
        t: fc.constant('advance' as const),
        ms: fc.oneof(
          fc.integer({ min: 60_000, max: 2 * DAY }),
          fc.integer({ min: 2 * DAY, max: 45 * DAY }),
          fc.integer({ min: 45 * DAY, max: 200 * DAY }),
        ),
        pays: fc.boolean(),
      }),
    },
  );
  const scenario: fc.Arbitrary<Scenario> = fc.record({
    plan: pick,
    quantity: fc.integer({ min: 1, max: 3 }),
    processor: fc.constantFrom('manual' as const, 'fake' as const),
    dunningDays: fc.option(fc.integer({ min: 1, max: 60 }), { nil: null }),
    startOffset: fc.integer({ min: 0, max: 60 * DAY }),
    actions: fc.array(action, { minLength: 1, maxLength: 14 }),
  });

  /** Runs one step on the server; answers the refusal's code, or null. */
  async function step(sub: UserSubscriptionEntity, a: Action): Promise<string | null> {
    const s = site();
    try {
      switch (a.t) {
        case 'change': {
          const dto = { productId: plans[a.plan].id, quantity: a.quantity };
          await service().changePlan(s, userId, sub.id, a.by === 'operator' ? { ...dto, prorate: a.prorate } : dto);
          break;
        }
        case 'pause':
          await service().pause(s, userId, sub.id, {});
          break;
        case 'resume':
          await service().resume(s, userId, sub.id);
          break;
        case 'cancel':
          await service().cancel(s, userId, sub.id, {});
          break;
        case 'cancelAtEnd':
          await service().cancel(s, userId, sub.id, { atPeriodEnd: true });
          break;
        case 'payOutOfBand': {
          const [pending] = await ctx.t.db.getRepository(SubscriptionEntryEntity).find({
            where: { subscriptionId: sub.id, status: 'pending' },
            order: { id: 'ASC' },
            take: 1,
          });
          if (pending) await charges().pay(s, userId, sub.id, pending.id, { paidOutOfBand: true });
          break;
        }
        case 'advance':
          now += a.ms;
          await jobs().rollPeriods();
          break;
      }
      return null;
    } catch (err) {
      if (err instanceof ConflictProblem) return err.code;
      throw err;
    }
  }

  /** The model's side of a step; a payment out of band pays one of the period charges it knows are unpaid. */
  function expected(m: Model, a: Action): string | null {
    switch (a.t) {
      case 'change':
        return m.change(plans[a.plan], a.quantity, a.by === 'user' || a.prorate, now, a.pays);
      case 'pause':
        return m.pause();
      case 'resume':
        return m.resume(now, a.pays);
      case 'cancel':
        return m.cancel(now);
      case 'cancelAtEnd':
        return m.cancelAtPeriodEnd();
      case 'payOutOfBand':
        if (m.unpaid > 0) m.payOne();
        return null;
      case 'advance':
        m.roll(now, a.pays);
        return null;
    }
  }

  /**
   * After each step. `dueSince` holds when each period line was first seen pending: the clock
   * stands still during a step, so that is when it fell due.
   */
  async function check(sub: UserSubscriptionEntity, m: Model, window: number, dueSince: Map<number, number>) {
    const row = await ctx.t.db.getRepository(UserSubscriptionEntity).findOneByOrFail({ id: sub.id });
    const lines = await ctx.t.db
      .getRepository(SubscriptionEntryEntity)
      .find({ where: { subscriptionId: sub.id }, order: { id: 'ASC' } });
    const time = (d: Date | null) => d?.getTime() ?? null;
    expect({
      status: row.status,
      start: row.currentPeriodStart.getTime(),
      end: row.currentPeriodEnd.getTime(),
      balance: row.balance,
      cancelAtPeriodEnd: row.cancelAtPeriodEnd,
      unpaidCancelAt: time(row.unpaidCancelAt),
      canceledAt: time(row.canceledAt),
      cancelReason: row.cancelReason,
    }).toEqual({
      status: m.status,
      start: m.start,
      end: m.end,
      balance: m.balance,
      cancelAtPeriodEnd: m.cancelAtEnd,
      unpaidCancelAt: m.unpaidCancelAt,
      canceledAt: m.canceledAt,
      cancelReason: m.cancelReason,
    });
    // (d) no period charge, of a period of any length, stays unpaid beyond the dunning window
    // (the period job runs at each clock move, so the sweep's granularity is nil here).
    const pending = lines.filter((e) => e.kind !== 'charge' && e.status === 'pending');
    for (const e of pending) if (!dueSince.has(e.id)) dueSince.set(e.id, now);
    const overdue = pending
      .filter((e) => now - dueSince.get(e.id)! >= window)
      .map((e) => ({ line: e.id, unpaidDays: (now - dueSince.get(e.id)!) / DAY }));
    if (row.status !== 'canceled') expect({ status: row.status, overdue }).toEqual({ status: row.status, overdue: [] });
    // (a) every period has exactly one line that starts it, and the current one has its own.
    const starting = lines.filter((e) => e.kind === 'initial' || e.kind === 'renewal');
    expect(starting.map((e) => [e.periodStart!.getTime(), e.periodEnd!.getTime()])).toEqual(m.periods);
    expect(starting.map((e) => e.kind)).toEqual(['initial', ...Array<string>(m.periods.length - 1).fill('renewal')]);
    // (b) an active subscription owes no period charge; the unpaid ones are the model's.
    const period = lines.filter((e) => e.kind !== 'charge');
    const unpaid = period.filter((e) => e.status === 'pending');
    if (row.status === 'active') expect(unpaid).toEqual([]);
    expect(unpaid).toHaveLength(m.unpaid);
    // (c) the period lines add up to what the periods cost, and the balance to what was credited less what it paid.
    expect(period.reduce((sum, e) => sum + e.amount, 0)).toBe(m.cost);
    const credited = period.filter((e) => e.status === 'recorded').reduce((sum, e) => sum - e.amount, 0);
    const applied = lines.reduce((sum, e) => sum + e.creditApplied, 0);
    expect(row.balance).toBe(credited - applied);
    expect(row.balance).toBeGreaterThanOrEqual(0);
    for (const e of period.filter((x) => x.status === 'recorded')) expect(e.amount).toBeLessThan(0);
    for (const e of period.filter((x) => x.status !== 'recorded'))
      expect(e.creditApplied).toBeLessThanOrEqual(e.amount);
  }

  it(`holds the ledger's invariants over ${RUNS} random runs (fast-check seed ${SEED})`, async () => {
    let runs = 0;
    /** Runs that ended canceled by the dunning window before their period's end; of those, periods of a month or more. */
    let windowCancels = 0;
    let longWindowCancels = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (sc) => {
        runs += 1;
        now = Date.UTC(2001, 0, 31, 10) + sc.startOffset;
        pays = false;
        line += 1;
        const plan = plans[sc.plan];
        const settings = sc.dunningDays === null ? {} : { subscriptions: { dunningDays: sc.dunningDays } };
        await ctx.t.db.getRepository(SiteEntity).update({ id: ctx.tenants[0].siteId }, { settings });
        const window = (sc.dunningDays ?? 14) * DAY;
        const dueSince = new Map<number, number>();
        const started = await ctx.t.db.transaction((em) =>
          jobs().startFromOrder(em, {
            id: line,
            accountId: ctx.tenants[0].accountId,
            siteId: ctx.tenants[0].siteId,
            name: 'order.subscription_requested',
            payload: {
              orderId: 1e12 + line,
              orderNumber: line,
              userId,
              lineId: 1e12 + line,
              productId: plan.id,
              variantId: null,
              quantity: sc.quantity,
              interval: plan.interval,
              intervalCount: plan.count,
              unitAmount: plan.unit,
              currency: 'EUR',
            },
            createdAt: new Date(now),
          }),
        );
        const sub = started!;
        await ctx.t.db.getRepository(UserSubscriptionEntity).update({ id: sub.id }, { processor: sc.processor });
        const m = new Model(plan, sc.quantity, sc.processor, now, window);
        try {
          await check(sub, m, window, dueSince);
          for (const a of sc.actions) {
            pays = a.pays;
            const got = await step(sub, a);
            expect(got).toBe(expected(m, a));
            await check(sub, m, window, dueSince);
          }
          if (m.status === 'canceled' && m.cancelReason === 'unpaid' && m.canceledAt! < m.end) {
            windowCancels += 1;
            if (m.end - m.start >= 28 * DAY) longWindowCancels += 1;
          }
        } finally {
          // Out of the later runs' period jobs.
          await ctx.t.db.getRepository(UserSubscriptionEntity).update({ id: sub.id }, { status: 'canceled' });
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect(runs).toBe(RUNS);
    // The property reached what it is about: periods (a month to a year long) ended by the window.
    console.log(
      `ledger property: ${windowCancels} runs canceled by the dunning window, ${longWindowCancels} in a period of a month or more`,
    );
    expect(longWindowCancels).toBeGreaterThan(0);
  }, 150_000);
});
