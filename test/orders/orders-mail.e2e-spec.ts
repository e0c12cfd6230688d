import request from 'supertest';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { SessionsService } from '../../src/users/auth/sessions.service';
import { startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { fakeDns, verifySenderDomain } from '../support/dns';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';
import { makeOrder, makeProduct, ordersUrl } from './orders-fixtures';

/** The mail of orders, received by a real SMTP server (docs/testing.md: on a fresh database). */
describe('order mail', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    // A database of its own: mail other files left queued in the worker's database would reach this sink too.
    const dns = fakeDns();
    t = await startApp({
      databaseUrl: await createFreshDatabase('ordersmail'),
      env: { SMTP_URL: smtp.url },
      extraModules: [dns.module],
    });
    a = await createTenant(t);
    // The shop sends From its own address once its account verified the domain (docs/email.md).
    await verifySenderDomain(a, dns, 'harbour.example');
    await a.api
      .patch(`/api/v2/sites/${a.siteName}`)
      .send({
        title: 'Harbour Shop',
        settings: {
          email: { fromName: 'Harbour Shop', fromAddress: 'orders@harbour.example' },
          orders: { taxRates: { standard: 2000 } },
        },
      })
      .expect(200);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('placing an order mails the customer its confirmation: from the site, the items, the tax and the total', async () => {
    smtp.received.length = 0;
    const mug = await makeProduct(a, {
      name: 'Stoneware mug',
      unitAmount: 1850,
      taxCode: 'standard',
      taxBehavior: 'exclusive',
    });
    const print = await makeProduct(a, { name: 'Harbour print <b>', unitAmount: 4000 });
    const order = await makeOrder(
      a,
      [
        [mug.id, 2],
        [print.id, 1],
      ],
      { customer: { email: 'Grace@Example.com', name: 'Grace Hopper' } },
    );
    const [mail] = await smtp.waitFor(1);
    expect(mail.to).toEqual(['grace@example.com']);
    // The envelope sender is the operator's (MAIL_FROM), the From the shop's verified address.
    expect(mail.from).toBe('no-reply@localhost');
    expect(mail.parsed.from?.text).toBe('"Harbour Shop" <orders@harbour.example>');
    expect(mail.raw).toMatch(/^DKIM-Signature: .*\bd=harbour\.example;/m);
    expect(mail.parsed.to && !Array.isArray(mail.parsed.to) ? mail.parsed.to.text : '').toBe(
      '"Grace Hopper" <grace@example.com>',
    );
    expect(mail.parsed.subject).toBe(`Your order ${order.number} at Harbour Shop`);
    // 2 × 18.50 = 37.00, tax 20 % = 7.40; total 37.00 + 7.40 + 40.00 = 84.40
    expect(mail.parsed.text).toBe(
      [
        'Thank you, Grace Hopper!',
        '',
        `We received your order ${order.number}.`,
        '',
        '2 × Stoneware mug: €18.50',
        '1 × Harbour print <b>: €40.00',
        'Tax: €7.40',
        'Total: €84.40',
        '',
        'Sent by Harbour Shop.',
        '',
      ].join('\n'),
    );
    expect(order.totalAmount).toBe(8440);
    const html = mail.parsed.html || '';
    expect(html).toMatch(/2 × Stoneware mug<\/td><td[^>]*>€18\.50/);
    // Product names are escaped in the HTML part.
    expect(html).toMatch(/1 × Harbour print &lt;b&gt;<\/td><td[^>]*>€40\.00/);
    expect(html).toMatch(/Tax<\/td><td[^>]*>€7\.40/);
    expect(html).toMatch(/<strong>€84\.40<\/strong>/);
  });

  it('a signed-in user’s order mailed to an address nobody proved carries no name they chose', async () => {
    const mug = await makeProduct(a, { name: 'Stoneware mug', unitAmount: 1850 });
    const users = t.db.getRepository(SiteUserEntity);
    const place = async (user: SiteUserEntity) => {
      const { token } = await t.db.transaction((em) => t.app.get(SessionsService).create(em, user, {}));
      smtp.received.length = 0;
      await request(t.server)
        .post(ordersUrl(a))
        .set('authorization', `Bearer ${token}`)
        .send({ lines: [{ productId: mug.id, quantity: 1 }] })
        .expect(201);
      const [mail] = await smtp.waitFor(1);
      return `${mail.raw}\n${mail.parsed.text ?? ''}`;
    };
    const phishing = 'Your account is locked: call +1 555 0100';
    // An operator corrected the address: nobody has proved it yet.
    const unproved = await users.save(
      users.create({ siteId: a.siteId, email: 'corrected@example.com', name: phishing, emailVerifiedAt: null }),
    );
    const mailed = await place(unproved);
    expect(mailed).toContain('corrected@example.com');
    expect(mailed).not.toContain('+1 555 0100');
    // Once the address is proved, the confirmation greets them by name.
    await users.update({ id: unproved.id }, { emailVerifiedAt: new Date() });
    expect(await place({ ...unproved, emailVerifiedAt: new Date() })).toContain(`Thank you, ${phishing}!`);
  });

  it('a shipment mails the customer the carrier and tracking', async () => {
    smtp.received.length = 0;
    const p = await makeProduct(a, { name: 'Poster' });
    const order = await makeOrder(a, [[p.id, 1]], { customer: { email: 'alan@example.com' } });
    await smtp.waitFor(1);
    smtp.received.length = 0;
    const [line] = order.lines;
    await a.api
      .patch(ordersUrl(a, `/${order.id}/fulfillment`))
      .send({
        shipment: {
          carrier: 'DHL',
          trackingNumber: 'JD014600003828',
          trackingUrl: 'https://tracking.example/JD014600003828',
          lines: [{ lineId: line.id, quantity: 1 }],
        },
      })
      .expect(200);
    const [mail] = await smtp.waitFor(1);
    expect(mail.to).toEqual(['alan@example.com']);
    expect(mail.parsed.subject).toBe(`Your order ${order.number} has shipped`);
    expect(mail.parsed.text).toContain(`Your order ${order.number} left us with DHL, tracking number JD014600003828`);
    expect(mail.parsed.html).toContain('href="https://tracking.example/JD014600003828"');
    // A cancel sends nothing.
    const other = await makeOrder(a, [[p.id, 1]], { customer: { email: 'alan@example.com' } });
    await smtp.waitFor(2);
    await a.api
      .patch(ordersUrl(a, `/${other.id}/fulfillment`))
      .send({ status: 'canceled' })
      .expect(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect(smtp.received).toHaveLength(2);
  });
});
