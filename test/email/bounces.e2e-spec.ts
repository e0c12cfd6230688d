import { EmailMessageEntity } from '../../src/email/entities/email-message.entity';
import { eventually, startApp, TestApp } from '../support/app';
import { bounceFixture as fixture, mailThrough, sendToListener, SentCopy as Sent, valuesOf } from '../support/bounces';
import { createFreshDatabase, freePort } from '../support/databases';
import { bounceState } from '../support/bounce-state';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';

const DOMAIN = 'bounces.sitebase.test';

/**
 * Bounces and complaints by mail (docs/deliverability.md): real DSNs and ARF reports, sent over
 * SMTP (nodemailer's client, the null sender) to the app's listener, for copies the app really
 * sent through an SMTP sink with their VERP envelope sender.
 */
describe('bounce listener (SMTP): DSN and ARF reports', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;
  let port: number;
  const messages = () => t.db.getRepository(EmailMessageEntity);

  beforeAll(async () => {
    smtp = await startSmtpSink();
    port = await freePort();
    t = await startApp({
      databaseUrl: await createFreshDatabase('bounces'),
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Sitebase <no-reply@sitebase.test>',
        BOUNCE_DOMAIN: DOMAIN,
        BOUNCE_SMTP_PORT: String(port),
        BOUNCE_SMTP_HOST: '127.0.0.1',
        BOUNCE_SMTP_MAX_BYTES: '60000',
      },
    });
    a = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const state = bounceState(() => ({ t, a }));
  const { bouncesOf, suppression } = state;

  /** Sends a plain mail to `to` through the API and answers the copy the sink received. */
  const mailTo = (to: string): Promise<Sent> => mailThrough(a, smtp, to);

  /** Sends a report to the listener as an MTA does: MAIL FROM:<>, RCPT TO the bounce address. */
  const report = (to: string, raw: string) => sendToListener(port, to, raw);

  it('every copy carries its own VERP envelope sender at the bounce domain, case-insensitive letters and digits', async () => {
    const one = await mailTo('verp-1@example.org');
    const two = await mailTo('verp-2@example.org');
    for (const s of [one, two]) expect(s.verp).toMatch(new RegExp(`^bounces\\+[0-9a-z]+-[a-z2-7]{16}@${DOMAIN}$`));
    expect(one.verp).not.toBe(two.verp);
    // A lower-casing MTA's copy of the address names the same message; its upper-cased form too.
    const upper = one.verp.replace(/^bounces\+([^@]+)@/, (_m, token: string) => `bounces+${token.toUpperCase()}@`);
    await report(upper, fixture('postfix-hard.eml', valuesOf(one, upper)));
    expect(await bouncesOf(one.id)).toEqual([
      { kind: 'hard', source: 'dsn', status: '5.1.1', recipient: 'verp-1@example.org' },
    ]);
  });

  it.each([
    ['rfc3464-hard.eml', '5.0.0'],
    ['postfix-hard.eml', '5.1.1'],
    ['exim-hard.eml', '5.0.0'],
    ['gmail-hard.eml', '5.1.1'],
    ['outlook-hard.eml', '5.1.10'],
  ])(
    '%s to the VERP address: a hard bounce, the address suppressed, later mail to it not sent',
    async (name, status) => {
      const to = `hard-${name.split('-')[0]}@example.org`;
      const sent = await mailTo(to);
      const info = await report(sent.verp, fixture(name, valuesOf(sent)));
      expect(info.response).toMatch(/^250/);
      expect(await bouncesOf(sent.id)).toEqual([{ kind: 'hard', source: 'dsn', status, recipient: to }]);
      expect(await suppression(to)).toEqual({ reason: 'bounced', messageId: sent.id });
      // The same report again (an MTA retrying) changes nothing.
      await report(sent.verp, fixture(name, valuesOf(sent)));
      expect(await bouncesOf(sent.id)).toHaveLength(1);
      // Non-essential mail to it is recorded failed and never leaves.
      const res = await a.api
        .post(`/api/v2/sites/${a.siteName}/email/send`)
        .send({ to: [{ email: to.toUpperCase() }], subject: 'Again', text: 'Hello' })
        .expect(202);
      expect(res.body.messages).toEqual([
        { id: expect.any(Number), to: to.toUpperCase(), kind: 'to', status: 'failed' },
      ]);
      expect(await messages().findOneByOrFail({ id: res.body.messages[0].id })).toEqual(
        expect.objectContaining({ status: 'failed', error: 'suppressed: the address bounced', attempts: 0 }),
      );
    },
  );

  it('a sign-in code still goes to a bounced address, never to one that complained', async () => {
    const bounced = await mailTo('otp-bounced@example.org');
    await report(bounced.verp, fixture('gmail-hard.eml', valuesOf(bounced)));
    const complained = await mailTo('otp-complained@example.org');
    await report(complained.verp, fixture('arf-abuse.eml', valuesOf(complained)));
    expect(await suppression('otp-complained@example.org')).toEqual({ reason: 'complained', messageId: complained.id });
    const otp = (email: string) =>
      a.api
        .post(`/api/v2/sites/${a.siteName}/email/send`)
        .send({ to: [{ email }], templateType: 'users.otp', data: { code: '482913', expiresInMinutes: 10 } })
        .expect(202);
    expect((await otp('otp-bounced@example.org')).body.messages[0].status).toBe('queued');
    expect((await otp('otp-complained@example.org')).body.messages[0].status).toBe('failed');
    await eventually(async () =>
      smtp.received.some((m) => m.to[0] === 'otp-bounced@example.org' && /482913/.test(m.raw)) ? true : undefined,
    );
    expect(smtp.received.filter((m) => m.to[0] === 'otp-complained@example.org')).toHaveLength(1);
  });

  it('a forwarded mailbox (bounces@) is matched by the quoted Return-Path, else by X-Sitebase-Message-Id with its Message-ID', async () => {
    const plain = `bounces@${DOMAIN}`;
    const byReturnPath = await mailTo('fwd-1@example.org');
    await report(plain, fixture('exim-hard.eml', valuesOf(byReturnPath, plain)));
    expect(await bouncesOf(byReturnPath.id)).toEqual([
      { kind: 'hard', source: 'dsn', status: '5.0.0', recipient: 'fwd-1@example.org' },
    ]);

    const byHeaders = await mailTo('fwd-2@example.org');
    await report(
      plain,
      fixture('outlook-hard.eml', { ...valuesOf(byHeaders, plain), RETURN_PATH: 'someone@else.example' }),
    );
    expect(await bouncesOf(byHeaders.id)).toHaveLength(1);

    // The header alone is anyone's to write: with another Message-ID nothing happens.
    const forged = await mailTo('fwd-3@example.org');
    await report(
      plain,
      fixture('outlook-hard.eml', { ...valuesOf(forged, plain), RETURN_PATH: '', MESSAGE_ID: 'guess@example.com' }),
    );
    expect(await bouncesOf(forged.id)).toEqual([]);
    expect(await suppression('fwd-3@example.org')).toBeUndefined();
  });

  it('soft bounces suppress at the site’s limit within its window; a delay notice is no bounce', async () => {
    await a.api
      .patch(`/api/v2/sites/${a.siteName}`)
      .send({ settings: { email: { softBounceLimit: 2, softBounceWindowDays: 3 } } })
      .expect(200);
    const first = await mailTo('full@example.org');
    await report(first.verp, fixture('postfix-delayed.eml', valuesOf(first)));
    expect(await bouncesOf(first.id)).toEqual([]);
    await report(first.verp, fixture('postfix-soft.eml', valuesOf(first)));
    expect(await bouncesOf(first.id)).toEqual([
      { kind: 'soft', source: 'dsn', status: '4.2.2', recipient: 'full@example.org' },
    ]);
    expect(await suppression('full@example.org')).toBeUndefined();
    const second = await mailTo('full@example.org');
    await report(second.verp, fixture('postfix-soft.eml', valuesOf(second)));
    expect(await suppression('full@example.org')).toEqual({ reason: 'bounced', messageId: second.id });
  });

  it('refuses other domains and local parts (no relay), forged tokens and oversized reports', async () => {
    const sent = await mailTo('refused@example.org');
    const dsn = fixture('postfix-hard.eml', valuesOf(sent));
    await expect(report('someone@example.com', dsn)).rejects.toMatchObject({ responseCode: 550 });
    await expect(report(`postmaster@${DOMAIN}`, dsn)).rejects.toMatchObject({ responseCode: 550 });
    const forged = sent.verp.replace(/-([a-z2-7])/, (_m, c: string) => `-${c === 'a' ? 'b' : 'a'}`);
    await expect(report(forged, dsn)).rejects.toMatchObject({ responseCode: 550 });
    const other = sent.verp.replace(/^bounces\+[0-9a-z]+-/, 'bounces+zz-');
    await expect(report(other, dsn)).rejects.toMatchObject({ responseCode: 550 });
    const big = dsn.replace('Hello there.', 'x'.repeat(70_000));
    await expect(report(sent.verp, big)).rejects.toMatchObject({ responseCode: 552 });
    expect(await bouncesOf(sent.id)).toEqual([]);
    // Something that is no report is accepted and ignored.
    await report(sent.verp, 'From: someone@example.com\r\nSubject: Out of office\r\n\r\nI am away.\r\n');
    expect(await bouncesOf(sent.id)).toEqual([]);
    expect((await messages().findOneByOrFail({ id: sent.id })).status).toBe('sent');
  });
});
