import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { eventually, startApp, TestApp } from '../support/app';
import { reportCopy } from '../support/bounces';
import { confinedPage, launchChromium } from '../support/browser';
import { createFreshDatabase, freePort } from '../support/databases';
import { snapshotDatabase } from '../support/db-snapshot';
import { eventsOf, lastEventId } from '../support/events';
import { expectProblem } from '../support/problem';
import { ReceivedMail, SmtpSink, startSmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';
import { makeList, nl } from './newsletter-fixtures';

const DOMAIN = 'bounces.sitebase.test';

/**
 * Only the person lifts a complaint (docs/deliverability.md, issue 42): after a genuine complaint
 * (an ARF report to the bounce listener), a tenant subscribes the address through the public form
 * and opens the mailed link as a mail scanner would (GET, HEAD): nothing changes. No key route
 * lifts it or gets past it. Only the POST of the page's button does, and records its events; in
 * Chromium, a person opens the link and presses the button.
 */
describe('newsletter: only the person lifts a complaint', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;
  let listener: number;
  let base: string;
  const anon = () => request(t.server);
  const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email));

  beforeAll(async () => {
    smtp = await startSmtpSink();
    listener = await freePort();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startApp({
      databaseUrl: await createFreshDatabase('complaintconsent'),
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Sitebase <no-reply@sitebase.test>',
        BOUNCE_DOMAIN: DOMAIN,
        BOUNCE_SMTP_PORT: String(listener),
        BOUNCE_SMTP_HOST: '127.0.0.1',
        PUBLIC_BASE_URL: base,
      },
    });
    await t.app.listen(port, '127.0.0.1');
    a = await createTenant(t);
    await a.api.patch(`/api/v2/sites/${a.siteName}`).send({ title: 'Harbour News' }).expect(200);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  /** The email module's suppression of the address, if any. */
  const suppression = async (email: string) =>
    (
      await t.db.query<Array<{ id: number; reason: string }>>(
        'SELECT id::int AS id, reason FROM email_suppressions WHERE site_id = $1 AND email = $2',
        [a.siteId, email],
      )
    )[0];
  /** The subscription's deliverability and memberships (list id, status), or null. */
  const subscriptionOf = async (email: string) => {
    const [sub] = await t.db.query<Array<{ id: number; deliverability: string }>>(
      'SELECT id::int AS id, deliverability FROM newsletter_subscriptions WHERE site_id = $1 AND email = $2',
      [a.siteId, email],
    );
    if (!sub) return null;
    const memberships = await t.db.query<Array<{ listId: number; status: string }>>(
      'SELECT list_id::int AS "listId", status FROM newsletter_memberships WHERE subscription_id = $1 ORDER BY list_id',
      [sub.id],
    );
    return { ...sub, memberships };
  };

  /** A mail of the site to `email` reported as spam by its mailbox provider (ARF, RFC 5965). */
  async function complaintFrom(email: string): Promise<void> {
    const subject = `Order news for ${email}`;
    await a.api
      .post(`/api/v2/sites/${a.siteName}/email/send`)
      .send({ to: [{ email }], subject, text: 'Hello' })
      .expect(202);
    const copy = await eventually(async () => smtp.received.find((m) => m.parsed.subject === subject), 30000);
    await reportCopy(listener, 'arf-abuse.eml', copy);
    expect(await eventually(() => suppression(email), 30000)).toEqual({ id: expect.any(Number), reason: 'complained' });
  }

  /** The newest mail to `email` once it has `count` of them. */
  const newestMailTo = (email: string, count: number): Promise<ReceivedMail> =>
    eventually(async () => {
      const mails = mailsTo(email);
      return mails.length >= count ? mails[mails.length - 1] : undefined;
    }, 30000);

  /** The confirmation link of a mail, as the person's mail client shows it. */
  function confirmLinkIn(mail: ReceivedMail): string {
    const href = /href="([^"]*\/newsletter\/confirm\/[^"]+)"/.exec(String(mail.parsed.html))?.[1];
    if (!href) throw new Error(`no confirmation link in "${mail.parsed.subject}"`);
    return href.replace(/&amp;/g, '&');
  }

  it('GET and HEAD of the link change nothing; no key lifts or passes the complaint; the POST of the page’s button does', async () => {
    const email = 'carol@example.org';
    // Carol is a site user too; the tenant marks her as opted in to the newsletter (users' consent).
    const users = (rest: string) => `/api/v2/sites/${a.siteName}/users${rest}`;
    await anon().post(users('/request-otp')).send({ email }).expect(202);
    const otp = await newestMailTo(email, 1);
    const code = /\b(\d{6})\b/.exec(otp.parsed.text ?? '')![1];
    const signedIn = await anon().post(users('/verify-otp')).send({ email, code }).expect(200);
    await a.api
      .patch(users(`/${signedIn.body.user.id}`))
      .send({ metadata: { newsletter: true } })
      .expect(200);
    // Carol was on a list and reported a mail as spam; the tenant deleted her subscription since.
    const old = await makeList(a, { name: 'Old list', doubleOptIn: false, visibility: 'private' });
    await a.api
      .post(nl(a, '/subscriptions/sync'))
      .send({ listId: old.id, emails: [email], consent: true })
      .expect(200);
    await complaintFrom(email);
    expect((await subscriptionOf(email))?.deliverability).toBe('complained');
    await a.api.delete(nl(a, `/subscriptions/${(await subscriptionOf(email))!.id}`)).expect(204);
    const complaint = await suppression(email);
    // The tenant points the site's links at a host it runs.
    await a.api
      .patch(`/api/v2/sites/${a.siteName}`)
      .send({ settings: { publicBaseUrl: 'https://tenant.example' } })
      .expect(200);

    // The tenant subscribes her through the public form, to a single opt-in list.
    const offers = await makeList(a, { name: 'Offers', doubleOptIn: false });
    const mailed = mailsTo(email).length;
    await anon()
      .post(nl(a, '/subscribe'))
      .send({ email, lists: [offers.id] })
      .expect(202);
    // Not active at once, whatever the list says: pending until she confirms.
    expect(await subscriptionOf(email)).toEqual({
      id: expect.any(Number),
      deliverability: 'complained',
      memberships: [{ listId: offers.id, status: 'pending' }],
    });
    const mail = await newestMailTo(email, mailed + 1);
    const link = confirmLinkIn(mail);
    const path = link.slice(link.indexOf('/api/v2/'));

    // A mail scanner (or the tenant) opens the link: a page, JSON, HEAD. Nothing changes.
    const before = await snapshotDatabase(t.db);
    const page = await anon().get(path).set('accept', 'text/html').expect(200);
    expect(page.text).toContain('<form method="post" action="/api/v2/sites/');
    const json = await anon().get(path).set('accept', 'application/json').expect(200);
    await anon().head(path).set('accept', 'text/html').expect(200);
    expect(await snapshotDatabase(t.db)).toEqual(before);
    expect(json.body).toEqual({
      result: 'confirmation_required',
      lists: [{ listId: offers.id, name: 'Offers', status: 'pending' }],
    });
    expect(await suppression(email)).toEqual(complaint);

    // The mail: the fixed re-consent mail, with its link on the server's own origin.
    expect(mail.parsed.subject).toBe('Do you want mail from Harbour News again?');
    expect(link.startsWith(`${base}/api/v2/sites/${a.siteName}/newsletter/confirm/r.`)).toBe(true);
    expect(String(mail.parsed.html)).not.toContain('tenant.example');

    // Nothing a key can call lifts the complaint, or gets past it, and the mail cannot be replaced.
    const since = await lastEventId(t);
    const sub = (await subscriptionOf(email))!;
    expect(sub).toEqual({
      id: expect.any(Number),
      deliverability: 'complained',
      memberships: [{ listId: offers.id, status: 'pending' }],
    });
    expectProblem(
      await a.api.delete(`/api/v2/sites/${a.siteName}/email/suppressions/${complaint.id}?reason=asked`),
      409,
      'suppression_complained',
    );
    const status = (deliverability: string) =>
      a.api.post(nl(a, `/subscriptions/${sub.id}/status`)).send({ deliverability, reason: 'They asked' });
    expectProblem(await status('deliverable'), 409, 'transition_forbidden');
    await status('suppressed').expect(200);
    expectProblem(await status('deliverable'), 409, 'transition_forbidden');
    expectProblem(await status('bounced'), 409, 'transition_forbidden');
    const bulk = await a.api
      .post(nl(a, '/subscriptions/bulk'))
      .send({ action: 'set_deliverability', ids: [sub.id], deliverability: 'deliverable' })
      .expect(200);
    expect(bulk.body).toEqual(expect.objectContaining({ matched: 1, changed: 0 }));
    expectProblem(
      await a.api.post(nl(a, `/subscriptions/${sub.id}/list-membership`)).send({ add: [offers.id], consent: true }),
      409,
      'transition_forbidden',
    );
    const imported = await a.api
      .post(nl(a, '/subscriptions/import'))
      .field('listIds', String(offers.id))
      .field('consent', 'true')
      .attach('file', Buffer.from(`email\n${email}\n`), 'people.csv')
      .expect(200);
    expect(imported.body).toEqual(expect.objectContaining({ created: 0, updated: 0, skipped: 1 }));
    const synced = await a.api
      .post(nl(a, '/subscriptions/sync'))
      .send({ listId: offers.id, emails: [email], consent: true })
      .expect(200);
    expect(synced.body).toEqual({ added: 0, unsubscribed: 0, unchanged: 0, skipped: 1 });
    const fromUsers = await a.api
      .post(nl(a, '/subscriptions/sync'))
      .send({ listId: old.id, fromUsers: true, consent: true })
      .expect(200);
    expect(fromUsers.body).toEqual({ added: 0, unsubscribed: 0, unchanged: 0, skipped: 1 });
    const fixed = 'newsletter.complaint_confirmation';
    expectProblem(
      await a.api
        .post(`/api/v2/sites/${a.siteName}/email/templates`)
        .send({ type: fixed, name: 'Mine', subject: 'Hi', html: '<img src="{{ confirmUrl }}">' }),
      400,
      'validation_failed',
    );
    expectProblem(
      await a.api
        .post(`/api/v2/sites/${a.siteName}/email/send`)
        .send({ to: [{ email: 'x@example.org' }], templateType: fixed, data: { listName: 'x', confirmUrl: link } }),
      400,
      'validation_failed',
    );
    expect(await suppression(email)).toEqual(complaint);
    expect(await subscriptionOf(email)).toEqual({ ...sub, deliverability: 'suppressed' });
    expect((await eventsOf(t, a, since)).map((e) => e.name)).toEqual([]);

    // The person presses the page's button: the form posts the token. That alone lifts the complaint.
    const token = link.slice(link.lastIndexOf('/') + 1);
    const pressed = await anon()
      .post(nl(a, '/confirm'))
      .type('form')
      .set('accept', 'text/html')
      .send({ token })
      .expect(200);
    expect(pressed.text).toContain('Subscription confirmed');
    expect(await suppression(email)).toBeUndefined();
    expect(await subscriptionOf(email)).toEqual({
      ...sub,
      deliverability: 'deliverable',
      memberships: [{ listId: offers.id, status: 'active' }],
    });
    expect(await eventsOf(t, a, since)).toEqual([
      {
        name: 'email.suppression.lifted',
        payload: {
          id: complaint.id,
          email,
          reason: 'complained',
          note: null,
          by: 'person',
          liftReason: 'confirmed',
        },
      },
      { name: 'newsletter.subscription.confirmed', payload: { id: sub.id, listIds: [offers.id] } },
    ]);
    expect((await newestMailTo(email, mailed + 2)).parsed.subject).toBe('Welcome to Harbour News');
    // Once: the link was used.
    expectProblem(await anon().post(nl(a, '/confirm')).send({ token }), 410, 'token_used');
  });

  it('an ordinary confirmation link mailed before the complaint lifts nothing after it', async () => {
    const email = 'dave@example.org';
    await a.api
      .patch(`/api/v2/sites/${a.siteName}`)
      .send({ settings: { publicBaseUrl: null } })
      .expect(200);
    const weekly = await makeList(a, { name: 'Weekly', doubleOptIn: true });
    await anon()
      .post(nl(a, '/subscribe'))
      .send({ email, lists: [weekly.id] })
      .expect(202);
    const link = confirmLinkIn(await newestMailTo(email, 1));
    expect(link).toContain('/newsletter/confirm/c.');
    await complaintFrom(email);
    const complained = await subscriptionOf(email);
    const before = await snapshotDatabase(t.db);
    expectProblem(
      await anon()
        .get(link.slice(link.indexOf('/api/v2/')))
        .set('accept', 'application/json'),
      410,
      'token_used',
    );
    expectProblem(
      await anon()
        .post(nl(a, '/confirm'))
        .send({ token: link.slice(link.lastIndexOf('/') + 1) }),
      410,
      'token_used',
    );
    expect(await snapshotDatabase(t.db)).toEqual(before);
    expect(complained?.deliverability).toBe('complained');
    expect((await suppression(email))?.reason).toBe('complained');
  });

  describe('in headless Chromium', () => {
    let browser: Browser;
    let page: Page;
    const outside: string[] = [];

    beforeAll(async () => {
      browser = await launchChromium();
      page = await confinedPage(browser, base, outside);
    }, 60000);
    afterAll(async () => {
      await browser?.close();
    });

    it('the person opens the link (nothing changes), presses the button, and receives the mail again', async () => {
      const email = 'erin@example.org';
      await complaintFrom(email);
      const digest = await makeList(a, { name: 'Digest', doubleOptIn: true });
      const mailed = mailsTo(email).length;
      await anon()
        .post(nl(a, '/subscribe'))
        .send({ email, lists: [digest.id] })
        .expect(202);
      const link = confirmLinkIn(await newestMailTo(email, mailed + 1));

      const before = await snapshotDatabase(t.db);
      const opened = await page.goto(link);
      expect(opened?.status()).toBe(200);
      expect(await page.title()).toBe('Receive this mail again? · Harbour News');
      await expect(page.locator('main').textContent()).resolves.toContain('receive Digest from Harbour News again');
      expect(await snapshotDatabase(t.db)).toEqual(before);

      await page.getByRole('button', { name: 'Yes, send me this mail again' }).click();
      await page.getByRole('heading', { name: 'Subscription confirmed' }).waitFor();
      expect(await suppression(email)).toBeUndefined();
      expect(await subscriptionOf(email)).toEqual({
        id: expect.any(Number),
        deliverability: 'deliverable',
        memberships: [{ listId: digest.id, status: 'active' }],
      });
      expect(outside).toEqual([]);
    });
  });
});
