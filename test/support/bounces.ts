import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { eventually } from './app';
import type { ReceivedMail, SmtpSink } from './smtp';
import type { Tenant } from './tenant';

/**
 * Bounce reports for tests (docs/deliverability.md): the copies the app sent, the fixtures of
 * test/fixtures/bounces (real DSN and ARF formats) filled in for one of them, and a report sent to
 * the app's listener as an MTA sends it.
 */

/** What a report needs of a copy the app sent: its row id, recipient, envelope sender, Message-ID. */
export interface SentCopy {
  id: number;
  to: string;
  verp: string;
  messageId: string;
  /** The copy as the SMTP server received it. */
  raw: string;
}

export function sentOf(mail: ReceivedMail): SentCopy {
  const id = /^X-Sitebase-Message-Id: (\d+)/im.exec(mail.raw)?.[1];
  if (!id || !mail.parsed.messageId) throw new Error('Not a Sitebase mail');
  return {
    id: Number(id),
    to: mail.to[0],
    verp: mail.from,
    messageId: mail.parsed.messageId.replace(/^<|>$/g, ''),
    raw: mail.raw,
  };
}

/** The placeholders of a fixture for this copy (the report's bounce address may be another). */
export function valuesOf(sent: SentCopy, bounceAddress = sent.verp): Record<string, string> {
  return {
    BOUNCE_ADDRESS: bounceAddress,
    RETURN_PATH: sent.verp,
    RECIPIENT: sent.to,
    MESSAGE_ID: sent.messageId,
    SITEBASE_ID: String(sent.id),
  };
}

/** A fixture of test/fixtures/bounces with its placeholders filled in, with CRLF line ends. */
export function bounceFixture(name: string, values: Record<string, string>): string {
  const text = readFileSync(join(__dirname, '../fixtures/bounces', name), 'utf8');
  return text.replace(/\{\{([A-Z_]+)\}\}/g, (_m, key: string) => values[key] ?? '').replace(/\r?\n/g, '\r\n');
}

/** Sends a report to the listener on `port` as an MTA does: MAIL FROM:<>, RCPT TO the bounce address. */
export function sendToListener(port: number, to: string, raw: string): Promise<SMTPTransport.SentMessageInfo> {
  const client = createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  return client.sendMail({ envelope: { from: '', to: [to] }, raw }).finally(() => client.close());
}

/** The fixture `name` filled in for the copy `mail`, sent back to its VERP address. */
export function reportCopy(port: number, name: string, mail: ReceivedMail): Promise<SMTPTransport.SentMessageInfo> {
  const sent = sentOf(mail);
  return sendToListener(port, sent.verp, bounceFixture(name, valuesOf(sent)));
}

let mailed = 0;

/**
 * Sends a plain mail to `to` through the site's `POST …/email/send` and answers the copy the sink
 * received (each call its own subject, so an earlier copy is never taken for it).
 */
export async function mailThrough(tenant: Tenant, smtp: SmtpSink, to: string): Promise<SentCopy> {
  const subject = `Mail ${++mailed}`;
  await tenant.api
    .post(`/api/v2/sites/${tenant.siteName}/email/send`)
    .send({ to: [{ email: to }], subject, text: 'Hello' })
    .expect(202);
  return sentOf(await eventually(async () => smtp.received.find((m) => m.parsed.subject === subject)));
}
