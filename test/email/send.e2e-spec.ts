import request from 'supertest';
import { EmailMessageEntity } from '../../src/email/entities/email-message.entity';
import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { fakeDns, verifySenderDomain } from '../support/dns';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';

const messages = (t: TestApp) => t.db.getRepository(EmailMessageEntity);
const settled = (t: TestApp, id: number) =>
  eventually(async () => {
    const m = await messages(t).findOneByOrFail({ id });
    return m.status === 'sent' || m.status === 'failed' ? m : undefined;
  }, 30000);

describe('POST /api/v2/sites/:siteName/email/send over real SMTP', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  const send = (x: Tenant) => x.api.post(`/api/v2/sites/${x.siteName}/email/send`);

  beforeAll(async () => {
    smtp = await startSmtpSink();
    const dns = fakeDns();
    // A database of its own: mail other files left queued in the worker's database would reach
    // this SMTP server too (the start-up sweep sends what waited for one).
    t = await startApp({
      databaseUrl: await createFreshDatabase('mailsend'),
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'Sitebase <no-reply@sitebase.test>' },
      extraModules: [dns.module],
    });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
    // The site sends From its own address once its account verified the domain (docs/email.md).
    await verifySenderDomain(a, dns, 'demo.test');
    await a.api
      .patch(`/api/v2/sites/${a.siteName}`)
      .send({
        title: 'Demo Blog',
        settings: { email: { fromName: 'Demo Blog', fromAddress: 'news@demo.test', replyTo: 'editors@demo.test' } },
      })
      .expect(200);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('sends its own subject and HTML: From of the site, To/Cc headers, Bcc hidden, CSS inlined, a text part', async () => {
    const since = await lastEventId(t);
    const res = await send(a).send({
      to: [{ email: 'ada@example.com', name: 'Ada Lovelace' }],
      cc: [{ email: 'grace@example.com' }],
      bcc: [{ email: 'audit@example.com' }],
      subject: 'Welcome aboard',
      html: '<style>p.lead { color: #123456; }</style><p class="lead">Glad to have you.</p>',
      tags: ['welcome'],
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      batchId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      messages: [
        { id: expect.any(Number), to: 'ada@example.com', kind: 'to', status: 'queued' },
        { id: expect.any(Number), to: 'grace@example.com', kind: 'cc', status: 'queued' },
        { id: expect.any(Number), to: 'audit@example.com', kind: 'bcc', status: 'queued' },
      ],
    });
    const mails = await smtp.waitFor(3);
    const byRecipient = new Map(mails.map((m) => [m.to.join(','), m]));
    expect([...byRecipient.keys()].sort()).toEqual(['ada@example.com', 'audit@example.com', 'grace@example.com']);
    for (const mail of mails) {
      // The envelope sender (where bounces go) is the operator's, never the site's.
      expect(mail.from).toBe('no-reply@sitebase.test');
      expect(mail.parsed.from?.value).toEqual([{ address: 'news@demo.test', name: 'Demo Blog' }]);
      expect(mail.raw).toMatch(/^DKIM-Signature: .*\bd=demo\.test;/m);
      expect(mail.parsed.replyTo?.value).toEqual([{ address: 'editors@demo.test', name: '' }]);
      expect(mail.parsed.subject).toBe('Welcome aboard');
      expect(mail.parsed.headers.get('to')).toEqual(
        expect.objectContaining({ value: [{ address: 'ada@example.com', name: 'Ada Lovelace' }] }),
      );
      expect(mail.parsed.headers.get('cc')).toEqual(
        expect.objectContaining({ value: [{ address: 'grace@example.com', name: '' }] }),
      );
      // Bcc is in no copy's headers, not even its own.
      expect(mail.raw).not.toMatch(/^bcc:/im);
      expect(mail.raw).not.toContain('audit@example.com>');
      expect(mail.parsed.html).toContain('<p class="lead" style="color: #123456;">Glad to have you.</p>');
      expect(mail.parsed.text?.trim()).toBe('Glad to have you.');
    }
    const ids = (res.body.messages as Array<{ id: number }>).map((m) => m.id);
    const rows = await Promise.all(ids.map((id) => settled(t, id)));
    expect(rows.map((r) => [r.recipient, r.recipientKind, r.status, r.attempts])).toEqual([
      ['ada@example.com', 'to', 'sent', 1],
      ['grace@example.com', 'cc', 'sent', 1],
      ['audit@example.com', 'bcc', 'sent', 1],
    ]);
    expect(rows[0]).toEqual(
      expect.objectContaining({
        siteId: a.siteId,
        fromHeader: '"Demo Blog" <news@demo.test>',
        tags: ['welcome'],
        smtpResponse: expect.stringContaining('250'),
        smtpMessageId: expect.stringMatching(/^<.+>$/),
        sentAt: expect.any(Date),
        error: null,
      }),
    );
    // The id recorded is the one the copy carries (it is composed before it is handed over).
    rows.forEach((row) => expect(byRecipient.get(row.recipient)!.parsed.messageId).toBe(row.smtpMessageId));
    const sent = (await eventsOf(t, a, since)).filter((e) => e.name === 'email.sent');
    expect(sent.map((e) => e.payload)).toEqual(
      ids.map((id, i) =>
        expect.objectContaining({ messageId: id, to: rows[i].recipient, tags: ['welcome'], templateType: null }),
      ),
    );
  });

  it('sends through a published template: variables escaped in the HTML, the text part from the HTML', async () => {
    const created = await a.api
      .post(`/api/v2/sites/${a.siteName}/email/templates`)
      .send({
        type: 'users.otp',
        name: 'Plain code',
        subject: 'Code for {{ site.title }}: {{ code }}',
        html: '<style>.code { font-weight: bold; }</style><p>Hi {{ userName }},</p><p class="code">{{ code }}</p>',
      })
      .expect(201);
    await a.api.post(`/api/v2/sites/${a.siteName}/email/templates/${created.body.id}/publish`).expect(200);
    smtp.received.length = 0;
    const res = await send(a).send({
      to: [{ email: 'user@example.com' }],
      templateType: 'users.otp',
      data: { code: '123456', expiresInMinutes: 10, userName: '<script>alert(1)</script> & Co' },
    });
    expect(res.status).toBe(202);
    const [mail] = await smtp.waitFor(1);
    expect(mail.parsed.subject).toBe('Code for Demo Blog: 123456');
    expect(mail.parsed.html).toContain('<p>Hi &lt;script&gt;alert(1)&lt;/script&gt; &amp; Co,</p>');
    expect(mail.parsed.html).toContain('<p class="code" style="font-weight: bold;">123456</p>');
    expect(mail.parsed.text).toContain('Hi <script>alert(1)</script> & Co,');
    const row = await settled(t, res.body.messages[0].id);
    expect(row).toEqual(
      expect.objectContaining({ status: 'sent', templateId: created.body.id, templateType: 'users.otp' }),
    );
  });

  it("without a published template, a type sends its built-in default with the site's data", async () => {
    smtp.received.length = 0;
    const res = await send(a).send({
      to: [{ email: 'buyer@example.com', name: 'Buyer' }],
      templateType: 'orders.shipped',
      data: { orderNumber: 'A-7', carrier: 'DHL', trackingNumber: 'JD01' },
    });
    expect(res.status).toBe(202);
    const [mail] = await smtp.waitFor(1);
    expect(mail.parsed.subject).toBe('Your order A-7 has shipped');
    expect(mail.parsed.html).toMatch(/<strong[^>]*>JD01<\/strong>/);
    expect(mail.parsed.html).toMatch(/<body style="[^"]*background: #f4f4f5/);
    expect(mail.parsed.text).toContain('Your order A-7 left us with DHL');
  });

  it('an Idempotency-Key replays the first answer and sends once', async () => {
    const body = { to: [{ email: 'once@example.com' }], subject: 'Once', text: 'Only once' };
    const first = await send(a).set('Idempotency-Key', 'mail-once-1').send(body);
    const again = await send(a).set('Idempotency-Key', 'mail-once-1').send(body);
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.body).toEqual(first.body);
    expect(await messages(t).countBy({ recipient: 'once@example.com' })).toBe(1);
    const other = await send(a)
      .set('Idempotency-Key', 'mail-once-1')
      .send({ ...body, subject: 'Other' });
    expectProblem(other, 409, 'idempotency_key_reused');
  });

  describe('bad input answers 4xx and records nothing', () => {
    const cases: Array<[string, Record<string, unknown>, number, string, string | null]> = [
      [
        '51 recipients',
        { to: Array.from({ length: 51 }, (_, i) => ({ email: `r${i}@example.com` })), subject: 'x', text: 'x' },
        400,
        'validation_failed',
        'to',
      ],
      [
        '51 with cc and bcc',
        {
          to: [{ email: 'a@example.com' }],
          cc: Array.from({ length: 25 }, (_, i) => ({ email: `c${i}@example.com` })),
          bcc: Array.from({ length: 25 }, (_, i) => ({ email: `b${i}@example.com` })),
          subject: 'x',
          text: 'x',
        },
        400,
        'validation_failed',
        'to',
      ],
      [
        'CR/LF in the subject',
        { to: [{ email: 'a@example.com' }], subject: 'Hi\r\nBcc: victim@example.com', text: 'x' },
        400,
        'validation_failed',
        'subject',
      ],
      [
        'LF in a name',
        { to: [{ email: 'a@example.com', name: 'Ada\nBcc: victim@example.com' }], subject: 'x', text: 'x' },
        400,
        'validation_failed',
        'to.0.name',
      ],
      [
        'CR/LF in an address',
        { to: [{ email: 'a@example.com\r\nBcc: victim@example.com' }], subject: 'x', text: 'x' },
        400,
        'validation_failed',
        'to.0.email',
      ],
      [
        'a missing variable',
        { to: [{ email: 'a@example.com' }], templateType: 'users.otp', data: { code: '1' } },
        400,
        'validation_failed',
        'data.expiresInMinutes',
      ],
      [
        'a mistyped variable',
        { to: [{ email: 'a@example.com' }], templateType: 'users.otp', data: { code: '1', expiresInMinutes: 'ten' } },
        400,
        'validation_failed',
        'data.expiresInMinutes',
      ],
      [
        'an unknown template type',
        { to: [{ email: 'a@example.com' }], templateType: 'nope.nothing', data: {} },
        404,
        'template_type_not_found',
        null,
      ],
      [
        'an unknown template id',
        { to: [{ email: 'a@example.com' }], templateId: 999999999, data: {} },
        404,
        'not_found',
        null,
      ],
      [
        'a template and a subject',
        { to: [{ email: 'a@example.com' }], templateType: 'custom', subject: 'x', data: {} },
        400,
        'validation_failed',
        'templateType',
      ],
      [
        'a subject without a body',
        { to: [{ email: 'a@example.com' }], subject: 'x' },
        400,
        'validation_failed',
        'html',
      ],
      ['no recipient', { to: [], subject: 'x', text: 'x' }, 400, 'validation_failed', 'to'],
    ];
    it.each(cases)('%s', async (_label, body, status, code, path) => {
      const before = await messages(t).count();
      const res = await send(a).send(body);
      expectProblem(res, status, code);
      if (path) expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
      expect(await messages(t).count()).toBe(before);
    });

    it("another site's template id is a 404", async () => {
      const theirs = await b.api
        .post(`/api/v2/sites/${b.siteName}/email/templates`)
        .send({ type: 'custom', name: 'B', subject: '{{ subject }}', html: '{{ body }}' })
        .expect(201);
      const res = await send(a).send({
        to: [{ email: 'a@example.com' }],
        templateId: theirs.body.id,
        data: { subject: 's', body: 'b' },
      });
      expectProblem(res, 404, 'not_found');
    });

    it("another account's key: 404 for the site; no key: 401", async () => {
      const body = { to: [{ email: 'a@example.com' }], subject: 'x', text: 'x' };
      expectProblem(await b.api.post(`/api/v2/sites/${a.siteName}/email/send`).send(body), 404, 'site_not_found');
      const anonymous = await request(t.server).post(`/api/v2/sites/${a.siteName}/email/send`).send(body);
      expectProblem(anonymous, 401, 'missing_credential');
    });
  });

  it('lists and gets messages, filtered by status', async () => {
    const list = await a.api.get(`/api/v2/sites/${a.siteName}/email/messages?status=sent&limit=100`).expect(200);
    expect(list.body.data.length).toBeGreaterThanOrEqual(3);
    expect(list.body.data.every((m: { status: string }) => m.status === 'sent')).toBe(true);
    const [newest] = list.body.data;
    expect(newest).not.toHaveProperty('html');
    const one = await a.api.get(`/api/v2/sites/${a.siteName}/email/messages/${newest.id}`).expect(200);
    expect(one.body).toEqual(
      expect.objectContaining({ id: newest.id, status: 'sent', from: '"Demo Blog" <news@demo.test>', createdAt: ISO }),
    );
    expect(typeof one.body.html).toBe('string');
    expectProblem(await b.api.get(`/api/v2/sites/${b.siteName}/email/messages/${newest.id}`), 404, 'not_found');
  });
});

/**
 * Each on a database of its own: jobs other files left in the worker's database (a delivery cut
 * off by its app closing) would otherwise reach these SMTP servers too.
 */
describe('delivery: retries, failures, no SMTP', () => {
  const app = async (tag: string, env: Record<string, string>) =>
    startApp({ databaseUrl: await createFreshDatabase(tag), env });

  it('a server that refuses three times then accepts: delivered once, after 4 attempts', async () => {
    const smtp = await startSmtpSink({ refuse: (n) => (n <= 3 ? 451 : null) });
    const t = await app('mailretry', { SMTP_URL: smtp.url, EMAIL_RETRY_DELAY_SECONDS: '1', EMAIL_RETRY_LIMIT: '5' });
    try {
      const a = await createTenant(t);
      const res = await a.api
        .post(`/api/v2/sites/${a.siteName}/email/send`)
        .send({ to: [{ email: 'patient@example.com' }], subject: 'Eventually', text: 'Here' })
        .expect(202);
      const row = await settled(t, res.body.messages[0].id);
      expect(row).toEqual(expect.objectContaining({ status: 'sent', attempts: 4, error: null }));
      expect(smtp.attempts).toBe(4);
      expect(smtp.received.map((m) => m.to)).toEqual([['patient@example.com']]);
    } finally {
      await t.close();
      await smtp.close();
    }
  }, 60000);

  it('a server that always refuses: the message ends failed with the reason, and email.failed', async () => {
    const smtp = await startSmtpSink({ refuse: () => 451 });
    const t = await app('mailfail', { SMTP_URL: smtp.url, EMAIL_RETRY_DELAY_SECONDS: '1', EMAIL_RETRY_LIMIT: '2' });
    try {
      const a = await createTenant(t);
      const res = await a.api
        .post(`/api/v2/sites/${a.siteName}/email/send`)
        .send({ to: [{ email: 'never@example.com' }], subject: 'Never', text: 'No' })
        .expect(202);
      const row = await settled(t, res.body.messages[0].id);
      expect(row).toEqual(
        expect.objectContaining({ status: 'failed', attempts: 3, failedAt: expect.any(Date), subject: 'Never' }),
      );
      expect(row.error).toMatch(/451/);
      const failed = (await eventsOf(t, a)).filter((e) => e.name === 'email.failed');
      expect(failed.map((e) => e.payload)).toEqual([
        expect.objectContaining({ messageId: row.id, to: 'never@example.com', error: row.error }),
      ]);
    } finally {
      await t.close();
      await smtp.close();
    }
  }, 60000);

  it('a permanent refusal (550) fails at once', async () => {
    const smtp = await startSmtpSink({ refuse: () => 550 });
    const t = await app('mailperm', { SMTP_URL: smtp.url, EMAIL_RETRY_DELAY_SECONDS: '1' });
    try {
      const a = await createTenant(t);
      const res = await a.api
        .post(`/api/v2/sites/${a.siteName}/email/send`)
        .send({ to: [{ email: 'gone@example.com' }], subject: 'Gone', text: 'No' })
        .expect(202);
      const row = await settled(t, res.body.messages[0].id);
      expect(row).toEqual(expect.objectContaining({ status: 'failed', attempts: 1 }));
      expect(row.error).toMatch(/550/);
    } finally {
      await t.close();
      await smtp.close();
    }
  }, 30000);

  it('without SMTP_URL the message is recorded and stays queued; with one configured it is sent at start', async () => {
    const databaseUrl = await createFreshDatabase('maillater');
    const t = await startApp({ databaseUrl });
    const a = await createTenant(t);
    const res = await a.api
      .post(`/api/v2/sites/${a.siteName}/email/send`)
      .send({ to: [{ email: 'later@example.com' }], subject: 'Later', text: 'Kept' })
      .expect(202);
    const id = res.body.messages[0].id as number;
    await new Promise((r) => setTimeout(r, 1500));
    expect(await messages(t).findOneByOrFail({ id })).toEqual(
      expect.objectContaining({ status: 'queued', attempts: 0, subject: 'Later' }),
    );
    // Older than a minute: what the start-up sweep picks up.
    await t.db.query(`UPDATE email_messages SET created_at = now() - interval '2 minutes' WHERE id = $1`, [id]);
    await t.close();
    const smtp = await startSmtpSink();
    const again = await startApp({ databaseUrl, env: { SMTP_URL: smtp.url } });
    try {
      const [mail] = await smtp.waitFor(1);
      expect(mail.to).toEqual(['later@example.com']);
      expect((await settled(again, id)).status).toBe('sent');
    } finally {
      await again.close();
      await smtp.close();
    }
  }, 60000);
});
