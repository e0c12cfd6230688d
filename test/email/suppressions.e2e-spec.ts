import { createHash } from 'node:crypto';
import request from 'supertest';
import { EmailMessageEntity } from '../../src/email/entities/email-message.entity';
import { eventually, startApp, TestApp } from '../support/app';
import { reportCopy, sendToListener } from '../support/bounces';
import { createFreshDatabase, freePort } from '../support/databases';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { ReceivedMail, startSmtpSink, SmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';

const DOMAIN = 'bounces.sitebase.test';
const RATE = 4;

const nl = (x: Tenant, rest = '') => `/api/v2/sites/${x.siteName}/newsletter${rest}`;

/** A private single opt-in list of exactly these addresses, active with consent. */
async function listWith(x: Tenant, name: string, emails: string[]): Promise<number> {
  const list = await x.api.post(nl(x, '/lists')).send({ name, doubleOptIn: false, visibility: 'private' }).expect(201);
  await x.api.post(nl(x, '/subscriptions/sync')).send({ listId: list.body.id, emails, consent: true }).expect(200);
  return list.body.id as number;
}

/**
 * Suppressions by the operator (docs/deliverability.md): list, get, add (`manual`) and lift, with
 * their events and what they do to the newsletter's subscriptions and to mail; a complaint only
 * the person lifts, by confirming a subscription; the bounce listener's per-client rate.
 */
describe('email suppressions (admin routes)', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let port: number;
  const base = (x: Tenant) => `/api/v2/sites/${x.siteName}/email/suppressions`;
  interface Row {
    id: number;
    reason: string;
    note: string | null;
    messageId: number | null;
  }
  const rowOf = async (x: Tenant, email: string): Promise<Row | undefined> =>
    (
      await t.db.query<Row[]>(
        `SELECT id::int AS id, reason, note, message_id::int AS "messageId" FROM email_suppressions
          WHERE site_id = $1 AND email = $2`,
        [x.siteId, email],
      )
    )[0];
  const subscriptionOf = async (email: string) =>
    (
      await a.api
        .get(nl(a, `/subscriptions?limit=100`))
        .expect(200)
        .then((r) => r.body.data as Array<{ id: number; email: string; deliverability: string; lists: unknown[] }>)
    ).find((s) => s.email === email)!;
  const sendTo = async (email: string, subject: string) => {
    const res = await a.api
      .post(`/api/v2/sites/${a.siteName}/email/send`)
      .send({ to: [{ email }], subject, text: 'Hello' })
      .expect(202);
    return res.body.messages[0] as { id: number; status: string };
  };
  const received = (subject: string) =>
    eventually(async () => smtp.received.find((m) => m.parsed.subject === subject), 30000);

  const report = (name: string, mail: ReceivedMail) => reportCopy(port, name, mail);
  const mailListener = (to: string, raw: string) => sendToListener(port, to, raw);

  beforeAll(async () => {
    smtp = await startSmtpSink();
    port = await freePort();
    t = await startApp({
      databaseUrl: await createFreshDatabase('suppressions'),
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Sitebase <no-reply@sitebase.test>',
        BOUNCE_DOMAIN: DOMAIN,
        BOUNCE_SMTP_PORT: String(port),
        BOUNCE_SMTP_HOST: '127.0.0.1',
        BOUNCE_SMTP_RATE_PER_MINUTE: String(RATE),
        USER_DELETION_GRACE_SECONDS: '0',
      },
    });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('POST suppresses an address (manual): 201, Location, row, event; its subscription is suppressed and leaves its lists', async () => {
    const list = await listWith(a, 'Manual list', ['quiet@example.org', 'loud@example.org']);
    const sub = await subscriptionOf('quiet@example.org');
    const since = await lastEventId(t);
    const res = await a.api.post(base(a)).send({ email: 'Quiet@Example.org', note: 'Asked by phone' }).expect(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      email: 'quiet@example.org',
      reason: 'manual',
      note: 'Asked by phone',
      messageId: null,
      createdAt: ISO,
      updatedAt: ISO,
    });
    expect(res.headers.location).toMatch(new RegExp(`${base(a)}/${res.body.id}$`));
    expect(await rowOf(a, 'quiet@example.org')).toEqual({
      id: res.body.id,
      reason: 'manual',
      note: 'Asked by phone',
      messageId: null,
    });
    expect(await eventsOf(t, a, since)).toEqual([
      {
        name: 'email.suppression.created',
        payload: { id: res.body.id, email: 'quiet@example.org', reason: 'manual', note: 'Asked by phone' },
      },
      {
        name: 'newsletter.subscription.unsubscribed',
        payload: { id: sub.id, listIds: [list], by: 'operator', reason: 'suppressed' },
      },
    ]);
    expect((await subscriptionOf('quiet@example.org')).deliverability).toBe('suppressed');

    // Mail to it is recorded failed and never sent; a campaign to its list goes to the others only.
    const failed = await sendTo('quiet@example.org', 'To the quiet one');
    expect(failed.status).toBe('failed');
    expect(await t.db.getRepository(EmailMessageEntity).findOneByOrFail({ id: failed.id })).toEqual(
      expect.objectContaining({ error: 'suppressed: an operator suppressed the address', attempts: 0 }),
    );
    const campaign = (
      await a.api
        .post(nl(a, '/campaigns'))
        .send({ name: 'C1', subject: 'Campaign one', contentHtml: '<p>Hi</p>', listIds: [list] })
        .expect(201)
    ).body as { id: number };
    await a.api
      .patch(nl(a, `/campaigns/${campaign.id}`))
      .send({ status: 'scheduled' })
      .expect(200);
    await eventually(async () => {
      const res = await a.api.get(nl(a, `/campaigns/${campaign.id}`)).expect(200);
      return res.body.status === 'sent' ? true : undefined;
    }, 30000);
    await received('Campaign one');
    expect(smtp.received.filter((m) => m.parsed.subject === 'Campaign one').map((m) => m.to[0])).toEqual([
      'loud@example.org',
    ]);

    // The copy is recorded sent (and its email.sent event written) after the sink has it.
    await eventually(async () => {
      const rows = await t.db.query<unknown[]>(
        `SELECT 1 FROM email_messages WHERE site_id = $1 AND recipient = 'loud@example.org' AND status = 'sent'`,
        [a.siteId],
      );
      return rows.length > 0 ? true : undefined;
    }, 30000);

    // Again, in any case: a 409 naming the entry, which stays as it was; no event.
    const again = await lastEventId(t);
    const dup = await a.api.post(base(a)).send({ email: 'QUIET@example.org', note: 'Other words' });
    expectProblem(dup, 409, 'already_suppressed');
    expect(dup.body.detail).toContain(`entry ${res.body.id}`);
    expect((await rowOf(a, 'quiet@example.org'))?.note).toBe('Asked by phone');
    expect(await eventsOf(t, a, again)).toEqual([]);
  });

  it('GET lists newest first with reason and email filters and a cursor; GET one; other sites and no key see nothing', async () => {
    const one = (await a.api.post(base(a)).send({ email: 'list-1@example.org' }).expect(201)).body;
    const two = (await a.api.post(base(a)).send({ email: 'list-2@example.org' }).expect(201)).body;
    const first = await a.api.get(`${base(a)}?limit=1&reason=manual`).expect(200);
    expect(first.body).toEqual({ data: [two], pagination: { limit: 1, nextCursor: expect.any(String) } });
    const next = await a.api.get(`${base(a)}?limit=1&reason=manual&cursor=${first.body.pagination.nextCursor}`);
    expect(next.body.data).toEqual([one]);
    expect((await a.api.get(`${base(a)}?email=LIST-1@example.org`).expect(200)).body.data).toEqual([one]);
    expect((await a.api.get(`${base(a)}?reason=complained`).expect(200)).body.data).toEqual([]);
    expect((await a.api.get(`${base(a)}/${one.id}`).expect(200)).body).toEqual(one);

    expect((await b.api.get(base(b)).expect(200)).body.data).toEqual([]);
    expectProblem(await b.api.get(`${base(b)}/${one.id}`), 404, 'not_found');
    expectProblem(await b.api.delete(`${base(b)}/${one.id}?reason=mine`), 404, 'not_found');
    expectProblem(await b.api.get(`${base(a)}/${one.id}`), 404, 'site_not_found');
    for (const req of [
      request(t.server).get(base(a)),
      request(t.server).get(`${base(a)}/${one.id}`),
      request(t.server).post(base(a)).send({ email: 'x@example.org' }),
      request(t.server).delete(`${base(a)}/${one.id}?reason=x`),
    ])
      expect((await req).status).toBe(401);
    expect(await rowOf(a, 'list-1@example.org')).toEqual(expect.objectContaining({ id: one.id }));
    expect(await rowOf(a, 'x@example.org')).toBeUndefined();
  });

  it('bad bodies and queries are 400 with nothing changed', async () => {
    const since = await lastEventId(t);
    for (const [body, path] of [
      [{}, 'email'],
      [{ email: 'not an address' }, 'email'],
      [{ email: 'a@example.org\r\nBcc: x@example.org' }, 'email'],
      [{ email: 'bad-note@example.org', note: 'x'.repeat(501) }, 'note'],
      [{ email: 'bad-note@example.org', reason: 'bounced' }, 'reason'],
    ] as const) {
      const res = await a.api.post(base(a)).send(body);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    }
    expectProblem(await a.api.get(`${base(a)}?reason=spam`), 400, 'validation_failed');
    const entry = (await a.api.post(base(a)).send({ email: 'keep@example.org' }).expect(201)).body;
    const after = await lastEventId(t);
    for (const q of ['', '?reason=', `?reason=${'x'.repeat(501)}`]) {
      const res = await a.api.delete(`${base(a)}/${entry.id}${q}`);
      expectProblem(res, 400, 'validation_failed');
    }
    expect(await rowOf(a, 'keep@example.org')).toEqual(expect.objectContaining({ id: entry.id }));
    expect(await rowOf(a, 'bad-note@example.org')).toBeUndefined();
    expect((await eventsOf(t, a, since)).map((e) => e.name)).toEqual(['email.suppression.created']);
    expect(await eventsOf(t, a, after)).toEqual([]);
  });

  it('DELETE lifts an operator’s entry: 204, event; the subscription is deliverable, its lists stay left; mail goes again', async () => {
    const entry = (await rowOf(a, 'quiet@example.org'))!;
    const sub = await subscriptionOf('quiet@example.org');
    const since = await lastEventId(t);
    await a.api
      .delete(`${base(a)}/${entry.id}`)
      .query({ reason: 'Asked again by phone' })
      .expect(204);
    expect(await rowOf(a, 'quiet@example.org')).toBeUndefined();
    expect(await eventsOf(t, a, since)).toEqual([
      {
        name: 'email.suppression.lifted',
        payload: {
          id: entry.id,
          email: 'quiet@example.org',
          reason: 'manual',
          note: 'Asked by phone',
          by: 'operator',
          liftReason: 'Asked again by phone',
        },
      },
    ]);
    const now = await subscriptionOf('quiet@example.org');
    expect(now.deliverability).toBe('deliverable');
    expect(now.lists).toEqual(sub.lists);
    expect(now.lists).toEqual([expect.objectContaining({ status: 'unsubscribed', reason: 'suppressed' })]);
    expect((await sendTo('quiet@example.org', 'Back again')).status).toBe('queued');
    expect((await received('Back again')).to).toEqual(['quiet@example.org']);
    expectProblem(await a.api.delete(`${base(a)}/${entry.id}?reason=twice`), 404, 'not_found');
  });

  it('a hard bounce lifted: the subscription is deliverable on its lists again and mail goes out', async () => {
    const list = await listWith(a, 'Bounce list', ['gone@example.org']);
    await sendTo('gone@example.org', 'Will bounce');
    await report('postfix-hard.eml', await received('Will bounce'));
    const entry = (await rowOf(a, 'gone@example.org'))!;
    expect(entry).toEqual(expect.objectContaining({ reason: 'bounced', messageId: expect.any(Number) }));
    expect((await subscriptionOf('gone@example.org')).deliverability).toBe('bounced');
    expect((await sendTo('gone@example.org', 'While bounced')).status).toBe('failed');

    const since = await lastEventId(t);
    await a.api.delete(`${base(a)}/${entry.id}?reason=Mailbox%20fixed`).expect(204);
    expect((await eventsOf(t, a, since)).map((e) => [e.name, e.payload.by, e.payload.reason])).toEqual([
      ['email.suppression.lifted', 'operator', 'bounced'],
    ]);
    const sub = await subscriptionOf('gone@example.org');
    expect(sub.deliverability).toBe('deliverable');
    expect(sub.lists).toEqual([expect.objectContaining({ listId: list, status: 'active' })]);
    expect((await sendTo('gone@example.org', 'After the fix')).status).toBe('queued');
    expect((await received('After the fix')).to).toEqual(['gone@example.org']);
  });

  it('a bounced address gets no confirmation mail: it is recorded failed, never sent, and the bounce stays', async () => {
    await listWith(a, 'Bounced again list', ['dead@example.org']);
    await sendTo('dead@example.org', 'Will bounce for good');
    await report('postfix-hard.eml', await received('Will bounce for good'));
    const entry = (await rowOf(a, 'dead@example.org'))!;
    expect(entry.reason).toBe('bounced');
    const open = (
      await a.api
        .post(nl(a, '/lists'))
        .send({ name: 'Open to all', doubleOptIn: true, visibility: 'public' })
        .expect(201)
    ).body as { id: number };
    await request(t.server)
      .post(nl(a, '/subscribe'))
      .send({ email: 'dead@example.org', lists: [open.id] })
      .expect(202);
    const mails = await t.db.query<Array<{ status: string; error: string | null }>>(
      `SELECT status, error FROM email_messages
        WHERE site_id = $1 AND recipient = 'dead@example.org' AND template_type = 'newsletter.confirmation'`,
      [a.siteId],
    );
    expect(mails).toEqual([{ status: 'failed', error: 'suppressed: the address bounced' }]);
    expect(smtp.received.filter((m) => m.to.includes('dead@example.org')).map((m) => m.parsed.subject)).toEqual([
      'Will bounce for good',
    ]);
    expect(await rowOf(a, 'dead@example.org')).toEqual(entry);
  });

  it('a complaint is the person’s to lift: 409 for the key, nothing changed; the re-consent page’s button lifts it', async () => {
    await listWith(a, 'Complaint list', ['angry@example.org']);
    await sendTo('angry@example.org', 'Will be reported');
    await report('arf-abuse.eml', await received('Will be reported'));
    const entry = (await rowOf(a, 'angry@example.org'))!;
    expect(entry.reason).toBe('complained');

    const since = await lastEventId(t);
    expectProblem(await a.api.delete(`${base(a)}/${entry.id}?reason=They%20said%20so`), 409, 'suppression_complained');
    expect(await rowOf(a, 'angry@example.org')).toEqual(entry);
    expect(await eventsOf(t, a, since)).toEqual([]);

    // The person subscribes again on the public form: the re-consent mail reaches them (consent mail).
    const open = (
      await a.api
        .post(nl(a, '/lists'))
        .send({ name: 'Public list', doubleOptIn: false, visibility: 'public' })
        .expect(201)
    ).body as { id: number };
    await request(t.server)
      .post(nl(a, '/subscribe'))
      .send({ email: 'angry@example.org', lists: [open.id] })
      .expect(202);
    const confirmation = await eventually(
      async () =>
        smtp.received.find(
          (m) => m.to.includes('angry@example.org') && /^Do you want mail from/.test(m.parsed.subject ?? ''),
        ),
      30000,
    );
    expect(confirmation.to).toEqual(['angry@example.org']);
    const confirm = /newsletter\/confirm\/([^"?\s]+)/.exec(String(confirmation.parsed.html))?.[1];
    expect(confirm).toBeDefined();
    expect(await rowOf(a, 'angry@example.org')).toEqual(entry);
    const before = await lastEventId(t);
    // Opening the link lifts nothing: it answers what the page's button would confirm.
    const opened = await request(t.server)
      .get(nl(a, `/confirm/${confirm}`))
      .set('accept', 'application/json')
      .expect(200);
    expect(opened.body.result).toBe('confirmation_required');
    expect(await rowOf(a, 'angry@example.org')).toEqual(entry);
    await request(t.server).post(nl(a, '/confirm')).send({ token: confirm }).expect(200);
    expect(await rowOf(a, 'angry@example.org')).toBeUndefined();
    expect((await eventsOf(t, a, before)).find((e) => e.name === 'email.suppression.lifted')).toEqual({
      name: 'email.suppression.lifted',
      payload: {
        id: entry.id,
        email: 'angry@example.org',
        reason: 'complained',
        note: null,
        by: 'person',
        liftReason: 'confirmed',
      },
    });
    expect((await subscriptionOf('angry@example.org')).deliverability).toBe('deliverable');
    expect((await sendTo('angry@example.org', 'Welcome back')).status).toBe('queued');
  });

  it('a site user’s erasure keeps their suppression by the address’s hash only: still no mail, still no second entry', async () => {
    const email = 'erased@example.org';
    const users = (rest: string) => `/api/v2/sites/${a.siteName}/users${rest}`;
    await request(t.server).post(users('/request-otp')).send({ email }).expect(202);
    const otp = await eventually(async () => smtp.received.find((m) => m.to.includes(email)), 30000);
    const code = /\b(\d{6})\b/.exec(otp.parsed.text ?? '')![1];
    const token = (await request(t.server).post(users('/verify-otp')).send({ email, code }).expect(200)).body
      .accessToken as string;
    const entry = (await a.api.post(base(a)).send({ email, note: 'Erased Person asked' }).expect(201)).body;
    await request(t.server).delete(users('/me')).set('authorization', `Bearer ${token}`).expect(202);
    const hashed = `sha256:${createHash('sha256').update(email).digest('hex')}`;
    const kept = await eventually(async () => {
      const [row] = await t.db.query<Array<Record<string, unknown>>>(
        'SELECT email, reason, note, message_id FROM email_suppressions WHERE id = $1',
        [entry.id],
      );
      return row?.email === hashed ? row : undefined;
    }, 30000);
    expect(kept).toEqual({ email: hashed, reason: 'manual', note: null, message_id: null });
    const named = await t.db.query<unknown[]>(
      `SELECT id FROM outbox_events WHERE site_id = $1 AND name LIKE 'email.suppression.%'
          AND (payload::text LIKE '%erased@example.org%' OR payload::text LIKE '%Erased Person%')`,
      [a.siteId],
    );
    expect(named).toEqual([]);
    expect((await sendTo(email, 'After erasure')).status).toBe('failed');
    expectProblem(await a.api.post(base(a)).send({ email }), 409, 'already_suppressed');
    expect(
      (await a.api.get(`${base(a)}?email=${email}`).expect(200)).body.data.map((x: { id: number }) => x.id),
    ).toEqual([entry.id]);
  });

  it('the bounce listener answers a client past its messages per minute with 421 at MAIL FROM', async () => {
    const notReport = 'From: someone@example.com\r\nSubject: Out of office\r\n\r\nI am away.\r\n';
    let accepted = 0;
    let refused: unknown;
    // A fixed window: at most 2 * RATE pass even when a minute ends mid-loop.
    for (let i = 0; i < 2 * RATE + 1 && !refused; i++)
      await mailListener(`bounces@${DOMAIN}`, notReport).then(
        () => accepted++,
        (err: unknown) => (refused = err),
      );
    expect(refused).toMatchObject({ responseCode: 421 });
    expect(accepted).toBeGreaterThanOrEqual(1);
    expect(accepted).toBeLessThanOrEqual(2 * RATE);
  });
});
