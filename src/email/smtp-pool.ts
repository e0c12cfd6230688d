import { createTransport } from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import type { SMTPPoolOptions, SMTPPoolSentMessageInfo } from 'nodemailer/lib/smtp-pool';

/** Messages a connection carries before it is closed and another one opened. */
export const SMTP_MAX_MESSAGES = 1000;

/** nodemailer's pooled SMTP transport, as the email module sends through it. */
export type SmtpPool = Mail<SMTPPoolSentMessageInfo, SMTPPoolOptions>;

/**
 * nodemailer's own pool (docs/email.md, "Delivery") over `url` (`smtp://user:pass@host:587`,
 * `smtps://…`): at most `size` connections, each logged in once and used for `maxMessages`
 * messages; a message the server refuses (envelope or data, other than 421) leaves its
 * connection in use after a RSET, any other failure closes it, and a message whose connection
 * the server had closed while idle goes out over another. Messages are handed over as options
 * and composed once, there.
 */
export function smtpPool(url: string, size: number, maxMessages = SMTP_MAX_MESSAGES): SmtpPool {
  return createTransport({
    url,
    pool: true,
    maxConnections: size,
    maxMessages,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
}
