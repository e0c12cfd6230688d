import { dkimVerify } from 'mailauth/lib/dkim/verify';
import request from 'supertest';
import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { FakeDns, fakeDns, SenderDomainBody, verifySenderDomain } from '../support/dns';
import { ReceivedMail, SmtpSink, startSmtpSink } from '../support/smtp';
import { createTenant, Tenant, uniqueName } from '../support/tenant';

const OPERATOR = 'no-reply@sitebase.test';

/**
 * Who mail is From (docs/email.md): an address at a domain the site's account verified goes out
 * From that address, DKIM-signed with the domain's key; any other goes From MAIL_FROM with the
 * address as Reply-To. The envelope sender is MAIL_FROM's address either way. Mail is received
 * by a real SMTP server and its signature checked by mailauth against the published key.
 */
describe('sender domains in mail that leaves', () => {
  let smtp: SmtpSink;
  let dns: FakeDns;
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let domainA: string;
  let verifiedA: SenderDomainBody;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    dns = fakeDns();
    // Its own database: mail other files left queued would reach this sink.
    t = await startApp({
      databaseUrl: await createFreshDatabase('senders'),
      extraModules: [dns.module],
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: `Sitebase <${OPERATOR}>`,
        NEWSLETTER_SUBSCRIBE_IP_HOURLY_LIMIT: '1000',
        NEWSLETTER_SUBSCRIBE_EMAIL_HOURLY_LIMIT: '1000',
      },
    });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
    domainA = `${uniqueName('demo')}.example`;
    await setSender(a, { fromName: 'Demo Site', fromAddress: `news@${domainA}` });
  }, 60000);
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  async function setSender(x: Tenant, email: Record<string, string | null>) {
    await x.api.patch(`/api/v2/sites/${x.siteName}`).send({ settings: { email } }).expect(200);
  }

  /** Sends one mail through POST /email/send and waits for it at the SMTP server. */
  async function sendOne(x: Tenant, extra: Record<string, unknown> = {}): Promise<ReceivedMail> {
    const subject = uniqueName('subject');
    await x.api
      .post(`/api/v2/sites/${x.siteName}/email/send`)
      .send({ to: [{ email: 'reader@example.com' }], subject, text: 'Hello', ...extra })
      .expect(202);
    return received(subject);
  }

  function received(subject: string): Promise<ReceivedMail> {
    return eventually(async () => smtp.received.find((m) => m.parsed.subject === subject), 20000);
  }

  /** The message's DKIM results, the keys read from the test's DNS. */
  async function dkimOf(mail: ReceivedMail) {
    const { results } = await dkimVerify(Buffer.from(mail.raw), { resolver: (name: string) => dns.resolve(name) });
    return results.map((r) => ({ d: r.signingDomain, s: r.selector, result: r.status.result }));
  }

  const fromOf = (m: ReceivedMail) => m.parsed.from?.value;
  const replyToOf = (m: ReceivedMail) => m.parsed.replyTo?.value;

  it("goes From MAIL_FROM under the site's name, Reply-To the site's address, while the domain is not verified", async () => {
    const mail = await sendOne(a);
    expect(mail.from).toBe(OPERATOR);
    expect(fromOf(mail)).toEqual([{ address: OPERATOR, name: 'Demo Site' }]);
    expect(replyToOf(mail)).toEqual([{ address: `news@${domainA}`, name: 'Demo Site' }]);
    expect(mail.parsed.headers.has('dkim-signature')).toBe(false);
  });

  it('the issue: any address a tenant sets (security@bank.example) is not what the relay sends From', async () => {
    const x = await createTenant(t);
    await setSender(x, { fromName: 'Bank', fromAddress: 'security@bank.example' });
    const mail = await sendOne(x);
    expect([mail.from, fromOf(mail)]).toEqual([OPERATOR, [{ address: OPERATOR, name: 'Bank' }]]);
    expect(replyToOf(mail)).toEqual([{ address: 'security@bank.example', name: 'Bank' }]);
    // The mail's own Reply-To wins over the replaced From's.
    const own = await sendOne(x, { replyTo: { email: 'help@bank.example' } });
    expect(replyToOf(own)).toEqual([{ address: 'help@bank.example', name: '' }]);
    const rows: Array<{ from_header: string; reply_to: string }> = await t.db.query(
      'SELECT from_header, reply_to FROM email_messages WHERE site_id = $1 ORDER BY id',
      [x.siteId],
    );
    expect(rows).toEqual([
      { from_header: `"Bank" <${OPERATOR}>`, reply_to: '"Bank" <security@bank.example>' },
      { from_header: `"Bank" <${OPERATOR}>`, reply_to: 'help@bank.example' },
    ]);
  });

  it("does not count another account's verified domain, nor a pending one", async () => {
    const theirs = `${uniqueName('theirs')}.example`;
    await verifySenderDomain(b, dns, theirs);
    await b.api
      .post('/api/v2/sender-domains')
      .send({ domain: `pending-${theirs}` })
      .expect(201);
    const x = await createTenant(t);
    await x.api
      .post('/api/v2/sender-domains')
      .send({ domain: `pending-${theirs}` })
      .expect(201);
    for (const address of [`news@${theirs}`, `news@pending-${theirs}`]) {
      await setSender(x, { fromName: 'X', fromAddress: address });
      const mail = await sendOne(x);
      expect([mail.from, fromOf(mail), replyToOf(mail)]).toEqual([
        OPERATOR,
        [{ address: OPERATOR, name: 'X' }],
        [{ address, name: 'X' }],
      ]);
      expect(mail.parsed.headers.has('dkim-signature')).toBe(false);
    }
    // B itself sends From it, signed.
    await setSender(b, { fromName: 'B', fromAddress: `news@${theirs}` });
    const own = await sendOne(b);
    expect(fromOf(own)).toEqual([{ address: `news@${theirs}`, name: 'B' }]);
    expect(await dkimOf(own)).toEqual([{ d: theirs, s: expect.any(String), result: 'pass' }]);
  });

  describe('once the account verified the domain', () => {
    beforeAll(async () => {
      verifiedA = await verifySenderDomain(a, dns, domainA);
    });

    it('goes From the site, DKIM-signed (d= the domain, s= its selector) with a signature that verifies', async () => {
      const mail = await sendOne(a);
      expect(mail.from).toBe(OPERATOR);
      expect(fromOf(mail)).toEqual([{ address: `news@${domainA}`, name: 'Demo Site' }]);
      expect(mail.parsed.replyTo).toBeUndefined();
      const signature = mail.raw.replace(/\r?\n[ \t]+/g, ' ').match(/^DKIM-Signature: (.+)$/im)![1];
      expect(signature).toMatch(new RegExp(`\\bd=${domainA.replace(/\./g, '\\.')};`));
      expect(signature).toMatch(new RegExp(`\\bs=${verifiedA.dkimSelector};`));
      expect(await dkimOf(mail)).toEqual([{ d: domainA, s: verifiedA.dkimSelector, result: 'pass' }]);
      // The check has teeth: a changed body or a changed signed header does not pass.
      for (const raw of [mail.raw.replace(/Hello/, 'Hellp'), mail.raw.replace(/^Subject: /m, 'Subject: Re: ')])
        expect(['fail', 'neutral']).toContain((await dkimOf({ ...mail, raw }))[0].result);
    });

    it('covers the exact domain only: an address at a subdomain goes From MAIL_FROM', async () => {
      const mail = await sendOne(a, {});
      expect(fromOf(mail)?.[0].address).toBe(`news@${domainA}`);
      const x = await createTenant(t);
      await x.api.post('/api/v2/sender-domains').send({ domain: domainA }).expect(201);
      const sub = `news@mail.${domainA}`;
      await setSender(a, { fromAddress: sub });
      try {
        const subMail = await sendOne(a);
        expect([fromOf(subMail), replyToOf(subMail)]).toEqual([
          [{ address: OPERATOR, name: 'Demo Site' }],
          [{ address: sub, name: 'Demo Site' }],
        ]);
      } finally {
        await setSender(a, { fromAddress: `news@${domainA}` });
      }
    });

    it("signs a campaign From its own verified address; a campaign's unverified address goes From MAIL_FROM", async () => {
      const list = await a.api
        .post(`/api/v2/sites/${a.siteName}/newsletter/lists`)
        .send({ name: uniqueName('list'), doubleOptIn: false, visibility: 'private' })
        .expect(201);
      await a.api
        .post(`/api/v2/sites/${a.siteName}/newsletter/subscriptions/sync`)
        .send({ listId: list.body.id, emails: ['ada@example.com'], consent: true })
        .expect(200);
      const send = async (fromAddress: string) => {
        const subject = uniqueName('campaign');
        const c = await a.api
          .post(`/api/v2/sites/${a.siteName}/newsletter/campaigns`)
          .send({
            name: subject,
            subject,
            contentHtml: '<p>Hi</p>',
            listIds: [list.body.id],
            fromName: 'Letters',
            fromAddress,
          })
          .expect(201);
        await a.api
          .patch(`/api/v2/sites/${a.siteName}/newsletter/campaigns/${c.body.id}`)
          .send({ status: 'scheduled' })
          .expect(200);
        return received(subject);
      };
      const signed = await send(`letters@${domainA}`);
      expect([signed.from, fromOf(signed)]).toEqual([OPERATOR, [{ address: `letters@${domainA}`, name: 'Letters' }]]);
      expect(await dkimOf(signed)).toEqual([{ d: domainA, s: verifiedA.dkimSelector, result: 'pass' }]);
      const other = await send('letters@unverified.example');
      expect([other.from, fromOf(other), replyToOf(other)]).toEqual([
        OPERATOR,
        [{ address: OPERATOR, name: 'Letters' }],
        [{ address: 'letters@unverified.example', name: 'Letters' }],
      ]);
      expect(other.parsed.headers.has('dkim-signature')).toBe(false);
    });

    it("signs a series step From the site's verified address", async () => {
      const list = await a.api
        .post(`/api/v2/sites/${a.siteName}/newsletter/lists`)
        .send({ name: uniqueName('course'), doubleOptIn: false })
        .expect(201);
      const subject = uniqueName('lesson');
      await a.api
        .post(`/api/v2/sites/${a.siteName}/newsletter/series`)
        .send({ name: subject, listIds: [list.body.id], steps: [{ delaySeconds: 0, subject, html: '<p>One</p>' }] })
        .expect(201);
      await request(t.server)
        .post(`/api/v2/sites/${a.siteName}/newsletter/subscribe`)
        .send({ email: 'student@example.com', lists: [list.body.id] })
        .expect(202);
      const mail = await received(subject);
      expect([mail.from, fromOf(mail)]).toEqual([OPERATOR, [{ address: `news@${domainA}`, name: 'Demo Site' }]]);
      expect(await dkimOf(mail)).toEqual([{ d: domainA, s: verifiedA.dkimSelector, result: 'pass' }]);
    });

    it('goes From MAIL_FROM again, unsigned, once the domain is removed', async () => {
      await a.api.delete(`/api/v2/sender-domains/${verifiedA.id}`).expect(204);
      const mail = await sendOne(a);
      expect([mail.from, fromOf(mail), replyToOf(mail)]).toEqual([
        OPERATOR,
        [{ address: OPERATOR, name: 'Demo Site' }],
        [{ address: `news@${domainA}`, name: 'Demo Site' }],
      ]);
      expect(mail.parsed.headers.has('dkim-signature')).toBe(false);
    });
  });
});
