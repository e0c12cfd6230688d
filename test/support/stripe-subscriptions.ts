import request from 'supertest';
import Stripe from 'stripe';
import { Clock } from '../../src/common/scheduling/clock';
import { sql } from '../../src/database/sql';
import { OrdersService } from '../../src/orders/orders.service';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { SubscriptionEntryEntity } from '../../src/users/entities/subscription-entry.entity';
import { UserSubscriptionEntity } from '../../src/users/entities/user-subscription.entity';
import { SubscriptionJobsService } from '../../src/users/subscriptions/subscription-jobs.service';
import { eventually, startApp, TestApp } from './app';
import { makeOrder, makeProduct, Made } from './commerce';
import { eventsOf, RecordedEvent } from './events';
import { startStripeStandIn, StripeStandIn } from './stripe/stand-in';
import type { RecordedRequest } from './stripe/stand-in';
import { connectStripe, signedStripeEvent, StripeKeys, stripeEventsUrl } from './stripe-connect';
import { createTenant, Tenant } from './tenant';

/**
 * Subscriptions charged through Stripe (docs/payments.md, "Subscriptions"), as their tests set them
 * up: an app pointed at the Stripe stand-in with jobs on and fast polling, the Clock the test's,
 * two connected sites, a monthly product, and subscriptions started from orders paid through
 * Stripe. The order's own payment (the orders adapter's: a PaymentIntent with
 * `setup_future_usage`, its payment method saved in `payment_customers`) is made here directly.
 */
export interface StripeSubscriptionsHarness {
  t: TestApp;
  standIn: StripeStandIn;
  a: Tenant;
  b: Tenant;
  keys: Map<Tenant, StripeKeys>;
  stripe: Map<Tenant, Stripe>;
  monthly: Made;
  /** The Clock's time: move it with `at`, never back. */
  now: Date;
}

export function withStripeSubscriptions(database: string): StripeSubscriptionsHarness {
  const h = { keys: new Map(), stripe: new Map(), now: new Date() } as StripeSubscriptionsHarness;
  beforeAll(async () => {
    h.standIn = await startStripeStandIn();
    h.t = await startApp({
      freshDatabase: database,
      env: {
        STRIPE_API_BASE: h.standIn.url,
        STRIPE_MAX_NETWORK_RETRIES: '1',
        STRIPE_TIMEOUT_MS: '2000',
        JOBS_POLL_SECONDS: '1',
        OUTBOX_POLL_MS: '200',
        CATALOG_CACHE_TTL_MS: '0',
      },
    });
    jest.spyOn(h.t.app.get(Clock), 'now').mockImplementation(() => new Date(h.now.getTime()));
    h.a = await createTenant(h.t);
    h.b = await createTenant(h.t);
    for (const x of [h.a, h.b]) {
      const keys = (await connectStripe(x)).test!;
      h.keys.set(x, keys);
      h.stripe.set(x, new Stripe(keys.secretKey, { ...h.standIn.clientOptions(), maxNetworkRetries: 0 }));
    }
    h.monthly = await makeProduct(h.a, {
      name: 'Ten a month',
      unitAmount: 1000,
      recurring: { interval: 'month', intervalCount: 1 },
    });
  });
  afterAll(async () => {
    await h.t?.close();
    await h.standIn?.close();
  });
  return h;
}

let made = 0;

/**
 * A subscription of the monthly product started from an order of `a` paid through Stripe, for a
 * new site user whose saved payment method is `paymentMethod` (null: the payment saved none).
 */
export async function stripeSubscription(
  h: StripeSubscriptionsHarness,
  paymentMethod: string | null = 'pm_card_visa',
): Promise<UserSubscriptionEntity> {
  made += 1;
  const { a, t } = h;
  const stripe = h.stripe.get(a)!;
  const email = `stripe-sub-${made}-${Date.now()}@example.com`;
  const user = await t.db
    .getRepository(SiteUserEntity)
    .save({ siteId: a.siteId, email, name: 'Subscriber', status: 'active', metadata: {} });
  const order = await makeOrder(a, [[h.monthly.id, 1]], { customer: { email } });
  const customer = await stripe.customers.create({ email });
  const intent = await stripe.paymentIntents.create({
    amount: 1000,
    currency: 'eur',
    customer: customer.id,
    payment_method: 'pm_card_visa',
    setup_future_usage: 'off_session',
    confirm: true,
    automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
  });
  await sql(
    t.db,
    `INSERT INTO payment_customers (site_id, user_id, mode, customer_id, payment_method_id) VALUES ($1, $2, 'test', $3, $4)`,
    [a.siteId, user.id, customer.id, paymentMethod],
  );
  // Paid as Stripe's succeeded event pays it (PATCH …/payment refuses a Stripe order): the same service method.
  const site = { id: a.siteId, name: a.siteName, accountId: a.accountId };
  await t.db.transaction(async (em) => {
    const orders = t.app.get(OrdersService);
    const locked = await orders.lockForPayment(em, site, { id: order.id });
    await orders.recordProcessorPayment(em, site, locked!, 'paid', {
      processor: 'stripe',
      mode: 'test',
      processorPaymentId: intent.id,
    });
  });
  return eventually(
    async () => (await t.db.getRepository(UserSubscriptionEntity).findOneBy({ orderId: order.id })) ?? undefined,
  );
}

/** Moves the Clock to `when` (never back) and runs the period job's work up to it. */
export async function rollTo(h: StripeSubscriptionsHarness, when: Date): Promise<void> {
  if (when.getTime() > h.now.getTime()) h.now = when;
  await h.t.app.get(SubscriptionJobsService).rollPeriods(h.now);
}

/** The clock past the subscription's period end, the period job run: answers its new renewal line. */
export async function renew(
  h: StripeSubscriptionsHarness,
  sub: UserSubscriptionEntity,
): Promise<SubscriptionEntryEntity> {
  const current = await h.t.db.getRepository(UserSubscriptionEntity).findOneByOrFail({ id: sub.id });
  await rollTo(h, new Date(current.currentPeriodEnd.getTime() + 1000));
  return h.t.db
    .getRepository(SubscriptionEntryEntity)
    .findOneOrFail({ where: { subscriptionId: sub.id, kind: 'renewal' }, order: { id: 'DESC' } });
}

export const lineOf = (h: StripeSubscriptionsHarness, id: number) =>
  h.t.db.getRepository(SubscriptionEntryEntity).findOneByOrFail({ id });
export const subOf = (h: StripeSubscriptionsHarness, id: number) =>
  h.t.db.getRepository(UserSubscriptionEntity).findOneByOrFail({ id });

/** Waits until the line is no longer what `still` says (a job ran). */
export const lineWhen = (h: StripeSubscriptionsHarness, id: number, done: (e: SubscriptionEntryEntity) => boolean) =>
  eventually(async () => {
    const e = await lineOf(h, id);
    return done(e) ? e : undefined;
  }, 30000);

/** The PaymentIntent create requests made for a subscription (its metadata), in order. */
export const chargeRequests = (h: StripeSubscriptionsHarness, subscriptionId: number): RecordedRequest[] =>
  h.standIn.requests.filter(
    (r) =>
      r.method === 'POST' &&
      r.path === '/v1/payment_intents' &&
      (r.params.metadata as Record<string, string> | undefined)?.sitebase_subscription_id === String(subscriptionId),
  );

/** The stand-in's PaymentIntents of a ledger line. */
export const intentsOf = (h: StripeSubscriptionsHarness, entryId: number) =>
  h.standIn
    .objects('payment_intent')
    .filter((pi) => (pi.metadata as Record<string, string> | undefined)?.sitebase_entry_id === String(entryId));

/** A signed Stripe event posted to the site's events route, as Stripe would. */
export function postStripeEvent(h: StripeSubscriptionsHarness, x: Tenant, event: Record<string, unknown>) {
  const signed = signedStripeEvent(event, h.keys.get(x)!.webhookSecret);
  return request(h.t.server)
    .post(stripeEventsUrl(x))
    .set('content-type', 'application/json')
    .set('stripe-signature', signed.header)
    .send(signed.payload);
}

/** A subscription's events after `after`: `user.subscription.charged` of its lines and its own changes. */
export async function subscriptionEvents(
  h: StripeSubscriptionsHarness,
  subscriptionId: number,
  after: number,
): Promise<RecordedEvent[]> {
  return (await eventsOf(h.t, h.a, after)).filter(
    (e) =>
      e.name.startsWith('user.subscription.') &&
      Number(e.name === 'user.subscription.charged' ? e.payload.subscriptionId : e.payload.id) === subscriptionId,
  );
}
