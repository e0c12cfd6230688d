import { EmailService } from '../../src/email/email.service';
import { EmailMessageEntity } from '../../src/email/entities/email-message.entity';
import { EmailTemplateTypes } from '../../src/email/template-types';
import { startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';

/** What other modules call: EmailService.send(em, site, mail) inside their own transaction. */
describe('EmailService, the API other modules send through', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;
  let email: EmailService;
  const site = () => ({ id: a.siteId, name: a.siteName, accountId: a.accountId });
  const rows = () => t.db.getRepository(EmailMessageEntity);

  beforeAll(async () => {
    smtp = await startSmtpSink();
    // A database of its own: mail other files left queued in the worker's database would reach
    // this SMTP server too (the start-up sweep sends what waited for one).
    t = await startApp({ databaseUrl: await createFreshDatabase('mailservice'), env: { SMTP_URL: smtp.url } });
    a = await createTenant(t);
    email = t.app.get(EmailService);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('a mail sent in a transaction that rolls back is neither recorded nor sent', async () => {
    const before = await rows().count();
    await expect(
      t.db.transaction(async (em) => {
        await email.send(em, site(), {
          to: { email: 'rollback@example.com' },
          templateType: 'users.otp',
          data: { code: '111111', expiresInMinutes: 5 },
        });
        throw new Error('the caller fails after sending');
      }),
    ).rejects.toThrow('the caller fails');
    expect(await rows().count()).toBe(before);
    const jobs = await t.db.query<unknown[]>(
      "SELECT 1 FROM pgboss.job WHERE name = 'email.deliver' AND data::text LIKE '%rollback%'",
    );
    expect(jobs).toEqual([]);
  });

  it('a mail sent in a transaction that commits is delivered', async () => {
    const [message] = await t.db.transaction((em) =>
      email.send(em, site(), {
        to: { email: 'commit@example.com', name: 'Commit' },
        templateType: 'users.otp',
        data: { code: '222222', expiresInMinutes: 5 },
        tags: ['otp'],
      }),
    );
    expect(message).toEqual(
      expect.objectContaining({ recipient: 'commit@example.com', status: 'queued', templateType: 'users.otp' }),
    );
    // Recorded with the code redacted; the mail carries it (docs/email.md, "What is stored").
    expect(`${message.subject} ${message.html} ${message.text}`).not.toContain('222222');
    expect(message.html).toContain('[redacted:code]');
    const [mail] = await smtp.waitFor(1);
    expect(mail.to).toEqual(['commit@example.com']);
    expect(mail.parsed.text).toContain('222222');
  });

  it('a batch records many mails at once, each rendered with its own data', async () => {
    smtp.received.length = 0;
    const batches = await t.db.transaction((em) =>
      email.sendBatch(
        em,
        site(),
        Array.from({ length: 60 }, (_, i) => ({
          to: { email: `reader${i}@example.com` },
          templateType: 'custom',
          data: { subject: `Issue for reader ${i}`, body: `<p>Hello reader ${i}</p>` },
        })),
      ),
    );
    expect(batches).toHaveLength(60);
    expect(batches.every((b) => b.length === 1)).toBe(true);
    const mails = await smtp.waitFor(60, 30000);
    const subjects = new Set(mails.map((m) => m.parsed.subject));
    expect(subjects.size).toBe(60);
    expect(subjects.has('Issue for reader 59')).toBe(true);
    // 60 messages go out as two jobs of at most 50.
    const jobs = await t.db.query<Array<{ n: number }>>(
      `SELECT jsonb_array_length(data->'messageIds') AS n FROM pgboss.job
        WHERE name = 'email.deliver' AND (data->'messageIds'->>0)::bigint = ANY($1::bigint[]) ORDER BY n DESC`,
      [[batches[0][0].id, batches[50][0].id]],
    );
    expect(jobs.map((j) => j.n)).toEqual([50, 10]);
  });

  it('a mail carries the extra List-/X- headers its sender sets; other header names are refused', async () => {
    smtp.received.length = 0;
    const [message] = await t.db.transaction((em) =>
      email.send(em, site(), {
        to: { email: 'list@example.com' },
        subject: 'With list headers',
        text: 'Hello',
        headers: {
          'List-Unsubscribe': '<https://demo.example/u/abc>',
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        },
      }),
    );
    const [mail] = await smtp.waitFor(1);
    expect(mail.raw).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(mail.raw).toContain('List-Unsubscribe: <https://demo.example/u/abc>');
    const row = await rows().findOneByOrFail({ id: message.id });
    expect(row.extraHeaders).toEqual({
      'List-Unsubscribe': '<https://demo.example/u/abc>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    const before = await rows().count();
    for (const headers of <Array<Record<string, string>>>[
      { From: 'evil@example.com' },
      { 'X-Note': 'a\r\nBcc: evil@example.com' },
    ]) {
      await expect(
        t.db.transaction((em) =>
          email.send(em, site(), { to: { email: 'x@example.com' }, subject: 's', text: 't', headers }),
        ),
      ).rejects.toMatchObject({ status: 400 });
    }
    expect(await rows().count()).toBe(before);
  });

  it('modules register their template types; a type is registered once', () => {
    const types = t.app.get(EmailTemplateTypes);
    expect(types.find('users.otp')?.module).toBe('users');
    expect(() => types.register({ ...types.get('users.otp') })).toThrow('registered twice');
    expect(() => types.register({ ...types.get('users.otp'), type: 'Bad Type' })).toThrow('not <module>.<purpose>');
  });
});
