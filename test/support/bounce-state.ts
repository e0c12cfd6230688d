import type { Type } from '@nestjs/common';
import { eventually, startApp, TestApp } from './app';
import { mailThrough, SentCopy } from './bounces';
import { createFreshDatabase } from './databases';
import { startSmtpSink, SmtpSink } from './smtp';
import { createTenant, Tenant } from './tenant';

/**
 * The set-up of a bounce test file: an SMTP sink as the relay, an app on a fresh database (`name`)
 * that sends through it with `env`, and one tenant, made before the file's tests and closed after.
 * Read the fields inside tests or hooks.
 */
export function mailApp(
  name: string,
  env: Record<string, string> = {},
  options: { extraModules?: Type[] } = {},
): { t: TestApp; a: Tenant; smtp: SmtpSink } {
  const ctx = {} as { t: TestApp; a: Tenant; smtp: SmtpSink };
  beforeAll(async () => {
    ctx.smtp = await startSmtpSink();
    ctx.t = await startApp({
      databaseUrl: await createFreshDatabase(name),
      env: { SMTP_URL: ctx.smtp.url, MAIL_FROM: 'Sitebase <no-reply@sitebase.test>', ...env },
      extraModules: options.extraModules,
    });
    ctx.a = await createTenant(ctx.t);
  });
  afterAll(async () => {
    await ctx.t?.close();
    await ctx.smtp?.close();
  });
  return ctx;
}

/**
 * What a bounce or complaint left behind for a tenant's addresses (docs/deliverability.md), for
 * the bounce and provider tests: `ctx` names the file's app and tenant once its hooks made them.
 */
export function bounceState(ctx: () => { t: TestApp; a: Tenant }) {
  const nl = (rest: string) => `/api/v2/sites/${ctx().a.siteName}/newsletter${rest}`;
  return {
    /** A private list (named `list`, or after the address) with this address subscribed; no mail sent. */
    async subscribed(email: string, list = email): Promise<void> {
      const { a } = ctx();
      const made = await a.api.post(nl('/lists')).send({ name: list, doubleOptIn: false, visibility: 'private' });
      if (made.status !== 201) throw new Error(`list: ${made.status}`);
      await a.api
        .post(nl('/subscriptions/sync'))
        .send({ listId: made.body.id, emails: [email], consent: true })
        .expect(200);
    },
    async subscriptionOf(email: string) {
      const res = await ctx().a.api.get(nl('/subscriptions?limit=50')).expect(200);
      return (res.body.data as Array<{ id: number; email: string; deliverability: string }>).find(
        (s) => s.email === email,
      )!;
    },
    bouncesOf: (messageId: number) =>
      ctx().t.db.query<Array<Record<string, string>>>(
        'SELECT kind, source, status, recipient FROM email_bounces WHERE message_id = $1 ORDER BY id',
        [messageId],
      ),
    async suppression(email: string) {
      const { t, a } = ctx();
      const rows = await t.db.query<Array<{ reason: string; messageId: number }>>(
        'SELECT reason, message_id::int AS "messageId" FROM email_suppressions WHERE site_id = $1 AND email = $2',
        [a.siteId, email],
      );
      return rows[0];
    },
    /**
     * mailThrough, then waits until the row keeps the relay's answer (its Message-ID): a
     * provider's event about the copy comes later still.
     */
    async mailTo(smtp: SmtpSink, to: string): Promise<SentCopy> {
      const { t, a } = ctx();
      const sent = await mailThrough(a, smtp, to);
      await eventually(async () => {
        const [row] = await t.db.query<Array<{ id: string }>>(
          'SELECT id FROM email_messages WHERE id = $1 AND smtp_message_id IS NOT NULL',
          [sent.id],
        );
        return row;
      });
      return sent;
    },
  };
}
