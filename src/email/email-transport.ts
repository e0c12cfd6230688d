import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import DKIM from 'nodemailer/lib/dkim';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import { parseConnectionUrl } from 'nodemailer/lib/shared';
import { AppConfig } from '../config/app-config';
import { SmtpConnections } from './smtp-connections';

/** The key a copy is signed with (nodemailer's DKIM signer): a verified sender domain's. */
export interface DkimKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

/** What the SMTP server answered for one message. */
export type DeliveryResult =
  | { ok: true; response: string; messageId: string | null }
  /** `permanent`: a 5xx refusal, which no retry will change. */
  | { ok: false; permanent: boolean; error: string };

/**
 * The SMTP connections (nodemailer's SMTPConnection, pooled by SmtpConnections) from SMTP_URL;
 * without it, `configured` is false and messages wait in the database.
 */
@Injectable()
export class EmailTransport implements OnModuleDestroy {
  private readonly logger = new Logger('Email');
  private readonly connections?: SmtpConnections;

  constructor(config: AppConfig) {
    if (!config.SMTP_URL) return;
    const { auth, ...server } = parseConnectionUrl(config.SMTP_URL);
    this.connections = new SmtpConnections(
      { ...server, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 },
      auth,
      config.SMTP_POOL_SIZE,
      1000,
    );
  }

  get configured(): boolean {
    return this.connections !== undefined;
  }

  /**
   * Sends one message. It is composed into one buffer (nodemailer's MailComposer) and written to
   * a pooled connection as it is, with its envelope: streamed straight into the socket, each
   * encoded line was a write of its own; handed to nodemailer's pooled transport, it was
   * composed a second time (docs/email.md, "Delivery"). The bytes are the same either way.
   * Retries are the delivery job's (counted, backed off, recorded): nothing is resent here.
   * With `dkim`, the composed message is signed by nodemailer's DKIM signer before it is sent
   * (what nodemailer's own transports do with a `dkim` option), so the signature covers exactly
   * the bytes written.
   */
  async deliver(mail: Mail.Options, dkim?: DkimKey): Promise<DeliveryResult> {
    if (!this.connections) throw new Error('SMTP_URL is not set');
    try {
      const message = new MailComposer(mail).compile();
      const messageId = message.messageId();
      const composed = await message.build();
      const raw = dkim ? await signed(composed, dkim) : composed;
      const { response } = await this.connections.send(mail.envelope as { from: string; to: string[] }, raw);
      return { ok: true, response, messageId };
    } catch (err) {
      const e = err as Error & { responseCode?: number; response?: string; code?: string };
      const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600;
      const error = (e.response ?? e.message ?? String(err)).slice(0, 1000);
      this.logger.warn({ error, code: e.code, responseCode: e.responseCode }, 'SMTP refused a message');
      return { ok: false, permanent, error };
    }
  }

  onModuleDestroy(): void {
    this.connections?.close();
  }
}

/** `raw` with a DKIM-Signature header of `key` prepended. */
async function signed(raw: Buffer, key: DkimKey): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of new DKIM({ keys: [key] }).sign(raw)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
