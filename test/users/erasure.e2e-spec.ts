import request from 'supertest';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { UserDeletionEntity } from '../../src/users/entities/user-deletion.entity';
import { SessionsService } from '../../src/users/auth/sessions.service';
import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { eventsOf } from '../support/events';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { makeProduct, ordersUrl } from '../support/commerce';
import { createTenant, Tenant } from '../support/tenant';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

/** Every table of the database that holds `text` anywhere in a row, with how many rows. */
async function tablesHolding(t: TestApp, text: string): Promise<Record<string, number>> {
  const tables = await t.db.query<Array<{ schema: string; name: string }>>(
    `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema IN ('public', 'pgboss')`,
  );
  const found: Record<string, number> = {};
  for (const { schema, name } of tables) {
    const [{ n }] = await t.db.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM "${schema}"."${name}" x WHERE position(lower($1) in lower(x::text)) > 0`,
      [text],
    );
    if (n > 0) found[`${schema}.${name}`] = n;
  }
  return found;
}

describe('site users: erasure (DELETE /me)', () => {
  let smtp: SmtpSink;
  let hooks: WebhookReceiver;
  let t: TestApp;
  let a: Tenant;
  const users = (rest = '') => `/api/v2/sites/${a.siteName}/users${rest}`;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    hooks = await startWebhookReceiver();
    t = await startApp({
      databaseUrl: await createFreshDatabase('erasure'),
      env: {
        SMTP_URL: smtp.url,
        USER_DELETION_GRACE_SECONDS: '0',
        WEBHOOKS_ALLOW_PRIVATE: 'true',
        WEBHOOKS_ALLOW_HTTP: 'true',
      },
    });
    a = await createTenant(t);
    // Every event goes out by webhook too: deliveries are one more place an address could stay.
    await a.api.post(`/api/v2/sites/${a.siteName}/webhooks`).send({ url: hooks.url }).expect(201);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
    await hooks.close();
  });

  async function signIn(email: string): Promise<string> {
    const before = smtp.received.filter((m) => m.to.includes(email)).length;
    await request(t.server).post(users('/request-otp')).send({ email }).expect(202);
    const deadline = Date.now() + 15000;
    let mails = smtp.received.filter((m) => m.to.includes(email));
    while (mails.length <= before && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      mails = smtp.received.filter((m) => m.to.includes(email));
    }
    const code = /\b(\d{6})\b/.exec(mails[mails.length - 1].parsed.text ?? '')![1];
    const res = await request(t.server).post(users('/verify-otp')).send({ email, code }).expect(200);
    return res.body.accessToken as string;
  }

  it('previews, then erases the user everywhere: no row of any table holds their address or name', async () => {
    const email = 'erase-me@example.com';
    const name = 'Zebulon Quixote-Erasure';
    const token = await signIn(email);
    const auth = { authorization: `Bearer ${token}` };
    const { body: mine } = await request(t.server).patch(users('/me')).set(auth).send({ name }).expect(200);
    // metadata is the operators' to write (an operator's note about the person).
    await a.api
      .patch(users(`/${mine.id}`))
      .send({ metadata: { note: name } })
      .expect(200);
    await request(t.server)
      .put(users('/me/profile/bio'))
      .set(auth)
      .send({ value: `I am ${name}` })
      .expect(200);
    const me = await request(t.server).get(users('/me')).set(auth).expect(200);
    // A message through the site's contact form, mailed to its team (Reply-To: the person).
    await a.api
      .patch(`/api/v2/sites/${a.siteName}`)
      .send({ settings: { contacts: { notifyEmails: ['team@example.com'] } } })
      .expect(200);
    await request(t.server)
      .post(`/api/v2/sites/${a.siteName}/contacts`)
      .send({ name, email, message: `Hello from ${name}` })
      .expect(201);
    await smtp.waitFor(2);
    await a.api
      .post(users(`/${me.body.id}/credits/grant`))
      .send({ amount: 40, reason: 'Welcome' })
      .expect(201);
    // Their own order of a monthly plan, paid: a subscription starts from it.
    const plan = await makeProduct(a, { name: 'Monthly', recurring: { interval: 'month', intervalCount: 1 } });
    const order = await request(t.server)
      .post(ordersUrl(a))
      .set(auth)
      .send({
        lines: [{ productId: plan.id, quantity: 1 }],
        shippingAddress: { line1: '1 Erasure Road', city: name, country: 'GB' },
      })
      .expect(201);
    await a.api
      .patch(ordersUrl(a, `/${order.body.id}/payment`))
      .send({ paymentStatus: 'paid' })
      .expect(200);
    await eventually(async () => {
      const [row] = await t.db.query<Array<{ id: string }>>('SELECT id FROM user_subscriptions WHERE user_id = $1', [
        me.body.id,
      ]);
      return row;
    });
    // Its confirmation mail went out (a send in flight while the erasure runs would record its
    // email.sent afterwards).
    await smtp.waitFor(3);
    // The events reached the webhook receiver (their deliveries are in the log).
    await hooks.waitFor(3);
    expect(Object.keys(await tablesHolding(t, email))).toEqual(
      expect.arrayContaining(['public.site_users', 'public.email_messages', 'public.user_otps']),
    );

    const preview = await request(t.server).get(users('/me/deletion-preview')).set(auth).expect(200);
    expect(preview.body).toEqual({
      gracePeriodSeconds: 0,
      resources: expect.arrayContaining([
        { resource: 'email_messages', count: 2, action: 'delete' },
        { resource: 'contacts', count: 1, action: 'delete' },
        { resource: 'user_profile_entries', count: 1, action: 'delete' },
        { resource: 'credits', count: 40, action: 'forfeit' },
        { resource: 'orders', count: 1, action: 'anonymise' },
        { resource: 'user_subscriptions', count: 1, action: 'cancel' },
        { resource: 'site_users', count: 1, action: 'delete' },
      ]),
    });

    const scheduled = await request(t.server).delete(users('/me')).set(auth).expect(202);
    expect(scheduled.body).toEqual({
      id: expect.any(Number),
      status: 'scheduled',
      requestedAt: ISO,
      purgeAfter: ISO,
      canceledAt: null,
      completedAt: null,
    });
    // Sessions end at once.
    expectProblem(await request(t.server).get(users('/me')).set(auth), 401, 'invalid_session');
    const done = await eventually(async () => {
      const row = await t.db.getRepository(UserDeletionEntity).findOneByOrFail({ id: scheduled.body.id });
      return row.status === 'completed' ? row : undefined;
    }, 20000);
    expect(done.summary).toEqual(
      expect.objectContaining({
        site_users: 1,
        user_profile_entries: 1,
        user_credit_entries: 1,
        contacts: 1,
        orders: 1,
        user_subscriptions: 1,
      }),
    );
    // The order stays, for accounting, without the person.
    const [kept] = await t.db.query<Array<Record<string, unknown>>>(
      'SELECT customer_email, customer_name, user_id, shipping_address, anonymised_at, total_amount FROM orders WHERE id = $1',
      [order.body.id],
    );
    expect(kept).toEqual(
      expect.objectContaining({
        customer_email: null,
        customer_name: null,
        user_id: null,
        shipping_address: null,
        anonymised_at: expect.any(Date),
      }),
    );
    expect(await tablesHolding(t, email)).toEqual({});
    expect(await tablesHolding(t, name)).toEqual({});
    expect((await eventsOf(t, a)).filter((e) => e.name === 'user.deleted').map((e) => e.payload)).toEqual([
      { id: me.body.id },
    ]);
    // The address can sign up again as a new person.
    const again = await signIn(email);
    const fresh = await request(t.server)
      .get(users('/me'))
      .set({ authorization: `Bearer ${again}` })
      .expect(200);
    expect(fresh.body.id).not.toBe(me.body.id);
    expect(fresh.body.name).toBe('');
  }, 60000);
});

describe('site users: a scheduled erasure can be canceled; meanwhile the user may only read', () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    t = await startApp({
      databaseUrl: await createFreshDatabase('erasurelater'),
      env: { USER_DELETION_GRACE_SECONDS: '3600' },
    });
    a = await createTenant(t);
  });
  afterAll(() => t.close());

  it('schedules, refuses writes, cancels', async () => {
    const users = (rest = '') => `/api/v2/sites/${a.siteName}/users${rest}`;
    const user = await t.db
      .getRepository(SiteUserEntity)
      .save({ siteId: a.siteId, email: 'later@example.com', name: 'Later', status: 'active', metadata: {} });
    const session = async () => (await t.db.transaction((em) => t.app.get(SessionsService).create(em, user, {}))).token;
    const first = { authorization: `Bearer ${await session()}` };
    expectProblem(await request(t.server).get(users('/me/deletion')).set(first), 404, 'deletion_not_found');
    const scheduled = await request(t.server).delete(users('/me')).set(first).expect(202);
    expect(scheduled.body.status).toBe('scheduled');
    expectProblem(await request(t.server).get(users('/me')).set(first), 401, 'invalid_session');
    // Signing in again during the grace period: reads and cancel only.
    const second = { authorization: `Bearer ${await session()}` };
    await request(t.server).get(users('/me')).set(second).expect(200);
    expect((await request(t.server).get(users('/me/deletion')).set(second).expect(200)).body.status).toBe('scheduled');
    expectProblem(
      await request(t.server).patch(users('/me')).set(second).send({ name: 'X' }),
      403,
      'user_pending_deletion',
    );
    // Asking again answers the same request.
    const again = await request(t.server).delete(users('/me')).set(second).expect(202);
    expect(again.body.id).toBe(scheduled.body.id);
    const third = { authorization: `Bearer ${await session()}` };
    const canceled = await request(t.server).delete(users('/me/deletion')).set(third).expect(200);
    expect(canceled.body).toEqual(expect.objectContaining({ status: 'canceled', canceledAt: ISO }));
    await request(t.server).patch(users('/me')).set(third).send({ name: 'Staying' }).expect(200);
    expectProblem(await request(t.server).delete(users('/me/deletion')).set(third), 404, 'deletion_not_found');
  });
});
