import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { MembershipEntity } from '../../src/newsletter/entities/membership.entity';
import { SubscriptionEntity } from '../../src/newsletter/entities/subscription.entity';
import { startApp, TestApp } from '../support/app';
import { confinedPage, launchChromium } from '../support/browser';
import { createFreshDatabase, freePort } from '../support/databases';
import { ReceivedMail, SmtpSink, startSmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';
import { makeList, nl } from './newsletter-fixtures';

/** The first link of a received mail whose URL contains `part`. */
function linkIn(mail: ReceivedMail, part: string): string {
  const html = typeof mail.parsed.html === 'string' ? mail.parsed.html : '';
  const href = [...html.matchAll(/href="([^"]+)"/g)]
    .map((m) => m[1].replace(/&amp;/g, '&'))
    .find((h) => h.includes(part));
  if (!href) throw new Error(`no ${part} link in "${mail.parsed.subject}"`);
  return href;
}

/**
 * The pages people see, in a real browser: the confirmation link of a mail received over SMTP,
 * then the preferences page linked from the welcome mail, its "Leave" and "Unsubscribe from all"
 * buttons, and the database after each click. Nothing is fetched from anywhere else, and the
 * pages' Content-Security-Policy holds (no violation reported).
 */
describe('newsletter pages in headless Chromium', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;
  let browser: Browser;
  let page: Page;
  let base: string;
  const outside: string[] = [];
  const consoleErrors: string[] = [];
  const statuses = async (email: string) => {
    const sub = await t.db.getRepository(SubscriptionEntity).findOneByOrFail({ siteId: a.siteId, email });
    const rows = await t.db
      .getRepository(MembershipEntity)
      .find({ where: { subscriptionId: sub.id }, order: { listId: 'ASC' } });
    return rows.map((m) => [m.listId, m.status]);
  };

  beforeAll(async () => {
    smtp = await startSmtpSink();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // Its own database (mail other files left queued would reach this sink); links point here.
    t = await startApp({
      databaseUrl: await createFreshDatabase('nlpages'),
      env: { SMTP_URL: smtp.url, PUBLIC_BASE_URL: base },
    });
    await t.app.listen(port, '127.0.0.1');
    a = await createTenant(t);
    await a.api.patch(`/api/v2/sites/${a.siteName}`).send({ title: 'Harbour News' }).expect(200);
    browser = await launchChromium();
    page = await confinedPage(browser, base, outside);
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it('double opt-in: the mailed link opens a confirmation page in the site’s name, and the memberships are active', async () => {
    const weekly = await makeList(a, { name: 'Weekly digest' });
    const offers = await makeList(a, { name: 'Offers' });
    await request(t.server)
      .post(nl(a, '/subscribe'))
      .send({ email: 'reader@example.com', name: 'Rae', lists: [weekly.id, offers.id] })
      .expect(202);
    const [mail] = await smtp.waitFor(1);
    expect(mail.to).toEqual(['reader@example.com']);
    expect(mail.parsed.subject).toBe('Confirm your subscription to Weekly digest, Offers');
    const confirm = linkIn(mail, '/newsletter/confirm/');
    expect(confirm.startsWith(`${base}/api/v2/sites/${a.siteName}/newsletter/confirm/`)).toBe(true);
    expect(await statuses('reader@example.com')).toEqual([
      [weekly.id, 'pending'],
      [offers.id, 'pending'],
    ]);

    const res = await page.goto(confirm);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/);
    expect(await page.title()).toBe('Subscription confirmed · Harbour News');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Subscription confirmed');
    await expect(page.getByRole('status').textContent()).resolves.toBe(
      'Thank you: you will receive Weekly digest, Offers from Harbour News.',
    );
    expect(await statuses('reader@example.com')).toEqual([
      [weekly.id, 'active'],
      [offers.id, 'active'],
    ]);
    // Opened again: the link was used; a page says so, and nothing changes.
    const again = await page.goto(confirm);
    expect(again?.status()).toBe(410);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Link already used');
  });

  it('the preferences page from the welcome mail: leave one list, then all, each click checked in the database', async () => {
    const [, welcome] = await smtp.waitFor(2);
    expect(welcome.parsed.subject).toBe('Welcome to Harbour News');
    const preferences = linkIn(welcome, '/newsletter/preferences/');
    const res = await page.goto(preferences);
    expect(res?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Your subscriptions');
    await expect(page.locator('main').textContent()).resolves.toContain('reader@example.com');
    const [[weeklyId], [offersId]] = await statuses('reader@example.com');

    await page.getByRole('button', { name: 'Leave Weekly digest' }).click();
    await page.getByText('You left the list.').waitFor();
    expect(page.url()).toContain('?done=left');
    expect(await statuses('reader@example.com')).toEqual([
      [weeklyId, 'unsubscribed'],
      [offersId, 'active'],
    ]);
    await expect(page.getByRole('button', { name: 'Leave Weekly digest' }).count()).resolves.toBe(0);

    await page.getByRole('button', { name: 'Unsubscribe from all' }).click();
    await page.getByText('You are unsubscribed from every list.').waitFor();
    expect(await statuses('reader@example.com')).toEqual([
      [weeklyId, 'unsubscribed'],
      [offersId, 'unsubscribed'],
    ]);
    await expect(page.getByRole('button', { name: 'Unsubscribe from all' }).count()).resolves.toBe(0);
  });

  it('a forged link is a page with a 400, and nothing was loaded from elsewhere or refused by the CSP', async () => {
    const res = await page.goto(`${base}${nl(a, '/preferences/m.1.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA')}`);
    expect(res?.status()).toBe(400);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Invalid link');
    expect(outside).toEqual([]);
    // The 410 and 400 pages above are logged as failed loads; nothing else (a CSP refusal would be).
    expect(consoleErrors.filter((e) => !/status of (400|410) /.test(e))).toEqual([]);
    expect(consoleErrors).toHaveLength(2);
  });

  it('with a confirmRedirectUrl the browser is sent to the site (303); an API client still gets JSON', async () => {
    await a.api
      .patch(`/api/v2/sites/${a.siteName}`)
      .send({ settings: { newsletter: { confirmRedirectUrl: 'https://harbour.example/thanks' } } })
      .expect(200);
    const list = await makeList(a, { name: 'Redirected' });
    await request(t.server)
      .post(nl(a, '/subscribe'))
      .send({ email: 'r2@example.com', lists: [list.id] })
      .expect(202);
    const mails = await smtp.waitFor(3);
    const confirm = linkIn(mails[2], '/newsletter/confirm/');
    const browserLike = await request(t.server).get(new URL(confirm).pathname).set('accept', 'text/html,*/*');
    expect(browserLike.status).toBe(303);
    expect(browserLike.headers.location).toBe('https://harbour.example/thanks');
    expect(await statuses('r2@example.com')).toEqual([[list.id, 'active']]);
  });
});
