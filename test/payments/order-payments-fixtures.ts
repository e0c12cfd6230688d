import request from 'supertest';
import { Clock } from '../../src/common/scheduling/clock';
import { OutboxRelay } from '../../src/common/outbox/outbox-relay.service';
import { OrderEntity } from '../../src/orders/entities/order.entity';
import { OrderPaymentJobs, PaymentIntentJobData } from '../../src/payments/orders/order-payment-jobs';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { SessionsService } from '../../src/users/auth/sessions.service';
import { startApp, TestApp } from '../support/app';
import { ordersUrl } from '../support/commerce';
import { connectStripe, signedStripeEvent, StripeKeys, stripeEventsUrl } from '../support/stripe-connect';
import { startStripeStandIn, StripeStandIn } from '../support/stripe/stand-in';
import { createTenant, Tenant } from '../support/tenant';

/**
 * What the order-payment tests share: an app pointed at the Stripe stand-in with its queue's
 * workers off (JOBS_ENABLED=false: the tests run the jobs and the outbox by hand), tenant `a`
 * connected in test mode and `b` manual, site users with sessions, Stripe events signed with
 * a's webhook secret.
 */
export interface OrderPaymentsContext {
  t: TestApp;
  standIn: StripeStandIn;
  a: Tenant;
  b: Tenant;
  keys: StripeKeys;
}

export function withOrderPayments(): OrderPaymentsContext {
  const ctx = {} as OrderPaymentsContext;
  beforeAll(async () => {
    ctx.standIn = await startStripeStandIn();
    ctx.t = await startApp({
      env: {
        STRIPE_API_BASE: ctx.standIn.url,
        STRIPE_MAX_NETWORK_RETRIES: '1',
        STRIPE_TIMEOUT_MS: '2000',
        JOBS_ENABLED: 'false',
        CATALOG_CACHE_TTL_MS: '0',
      },
    });
    [ctx.a, ctx.b] = await Promise.all([createTenant(ctx.t), createTenant(ctx.t)]);
    ctx.keys = (await connectStripe(ctx.a)).test!;
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await ctx.t?.close();
    await ctx.standIn?.close();
  });
  return ctx;
}

let users = 0;

/** A site user of `x` with a session: the header to send and the user's id. */
export async function signedIn(t: TestApp, x: Tenant): Promise<{ auth: { authorization: string }; userId: number }> {
  users += 1;
  const user = await t.db.getRepository(SiteUserEntity).save({
    siteId: x.siteId,
    email: `payer${users}-${x.siteId}@example.com`,
    name: 'Payer',
    status: 'active',
    metadata: {},
  });
  const { token } = await t.db.transaction((em) => t.app.get(SessionsService).create(em, user, {}));
  return { auth: { authorization: `Bearer ${token}` }, userId: user.id };
}

/** Places an order with a site user's session; answers its body. */
export async function sessionOrder(
  t: TestApp,
  x: Tenant,
  auth: { authorization: string },
  lines: Array<[number, number]>,
): Promise<{ id: number; number: number; totalAmount: number; expiresAt: string }> {
  const res = await request(t.server)
    .post(ordersUrl(x))
    .set(auth)
    .send({ lines: lines.map(([productId, quantity]) => ({ productId, quantity })) });
  if (res.status !== 201) throw new Error(`sessionOrder: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const intentUrl = (x: Tenant, id: number) => ordersUrl(x, `/${id}/payment-intent`);
export const refundUrl = (x: Tenant, id: number) => ordersUrl(x, `/${id}/refund`);

/** Stripe's event (built by the stand-in from its object) posted signed with a's webhook secret. */
export async function deliver(
  ctx: OrderPaymentsContext,
  event: Record<string, unknown>,
): Promise<{ outcome: string; replayed: boolean }> {
  const { payload, header } = signedStripeEvent(event, ctx.keys.webhookSecret);
  const res = await request(ctx.t.server)
    .post(stripeEventsUrl(ctx.a))
    .set('stripe-signature', header)
    .set('content-type', 'application/json')
    .send(payload);
  if (res.status !== 200) throw new Error(`deliver: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const orderRow = (t: TestApp, id: number) => t.db.getRepository(OrderEntity).findOneByOrFail({ id });

/** The jobs of a queue queued for an order (their payloads, oldest first). */
export async function jobsOf(t: TestApp, name: string, orderId: number): Promise<PaymentIntentJobData[]> {
  const rows = await t.db.query<Array<{ data: PaymentIntentJobData }>>(
    `SELECT data FROM pgboss.job WHERE name = $1 AND data->>'orderId' = $2 ORDER BY created_on`,
    [name, String(orderId)],
  );
  return rows.map((r) => r.data);
}

export const jobs = (t: TestApp) => t.app.get(OrderPaymentJobs);
export const relay = (t: TestApp) => t.app.get(OutboxRelay);

/** Sets the app's clock `ms` from now. */
export function moveClock(t: TestApp, ms: number): Date {
  const at = new Date(Date.now() + ms);
  jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(at);
  return at;
}
