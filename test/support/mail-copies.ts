import { ServerKeys } from '../../src/common/crypto/server-keys';
import { MAIL_SECRETS_KEY, withSecrets } from '../../src/email/mail-secrets';
import { TestApp } from './app';
import { scaled } from './time-scale';
import type { ReceivedMail, SmtpSink } from './smtp';

/**
 * Mail as its recipient gets it. A stored copy shows its codes and links as `[redacted:<name>]`
 * (docs/email.md, "What is stored"); the recipient's copy carries them. Two ways to read it:
 * - `receivedCopy`: the mail an SMTP sink received for a message (its `X-Sitebase-Message-Id`);
 * - `recipientCopies`: stored copies filled in as the delivery job fills them, for an app without
 *   SMTP (the sealed values are kept until a copy is sent or failed).
 */
export interface RecipientCopy {
  id: number;
  recipient: string;
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string> | null;
}

/** The mail the sink received for message `messageId`, once it has. */
export async function receivedCopy(smtp: SmtpSink, messageId: number, timeoutMs = 15000): Promise<ReceivedMail> {
  const deadline = Date.now() + scaled(timeoutMs);
  for (;;) {
    const found = smtp.received.find((m) => m.parsed.headers.get('x-sitebase-message-id') === String(messageId));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`the SMTP sink received no copy of message ${messageId}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The first group of `pattern` in the newest mail the sink received for `email` that has it (its
 * text, then its HTML), once one has: a link's token (`/newsletter\/confirm\/([\w.-]+)/`), a code.
 */
export async function mailedMatch(smtp: SmtpSink, email: string, pattern: RegExp, timeoutMs = 15000): Promise<string> {
  const deadline = Date.now() + scaled(timeoutMs);
  for (;;) {
    for (const m of [...smtp.received].reverse()) {
      if (!m.to.includes(email)) continue;
      const found = pattern.exec(`${m.parsed.text ?? ''}\n${typeof m.parsed.html === 'string' ? m.parsed.html : ''}`);
      if (found) return found[1];
    }
    if (Date.now() > deadline) throw new Error(`no mail to ${email} matched ${String(pattern)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The stored copies `where` (SQL over email_messages, `$1`… in `params`) names, newest first,
 * filled in with their sealed values. A copy already sent has none left: read the sink instead.
 */
export async function recipientCopies(t: TestApp, where: string, params: unknown[]): Promise<RecipientCopy[]> {
  const rows: Array<{
    id: string;
    siteId: string;
    batchId: string;
    recipient: string;
    subject: string;
    html: string;
    text: string;
    extraHeaders: Record<string, string> | null;
    sealedSecrets: string | null;
  }> = await t.db.query(
    `SELECT id, site_id AS "siteId", batch_id AS "batchId", recipient, subject, html, text,
            extra_headers AS "extraHeaders", sealed_secrets AS "sealedSecrets"
       FROM email_messages WHERE ${where} ORDER BY id DESC`,
    params,
  );
  const key = await t.app.get(ServerKeys).key(MAIL_SECRETS_KEY);
  return rows.map((row) => {
    const filled = withSecrets({ ...row, siteId: Number(row.siteId) }, key);
    if (!filled) throw new Error(`message ${row.id}: its sealed values do not open`);
    return {
      id: Number(row.id),
      recipient: row.recipient,
      subject: filled.subject,
      html: filled.html,
      text: filled.text,
      headers: filled.extraHeaders,
    };
  });
}
