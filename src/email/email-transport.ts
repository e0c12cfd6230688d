import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type Mail from 'nodemailer/lib/mailer';
import { EmailConfig } from './email.config';
import { SmtpPool, smtpPool } from './smtp-pool';

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
 * nodemailer's pooled SMTP transport (smtp-pool.ts) from SMTP_URL; without it, `configured` is
 * false and messages wait in the database.
 */
@Injectable()
export class EmailTransport implements OnModuleDestroy {
  private readonly logger = new Logger('Email');
  private readonly pool?: SmtpPool;

  constructor(config: EmailConfig) {
    if (config.SMTP_URL) this.pool = smtpPool(config.SMTP_URL, config.SMTP_POOL_SIZE);
  }

  get configured(): boolean {
    return this.pool !== undefined;
  }

  /**
   * Sends one message: its options go to the pool as they are, and nodemailer composes them once,
   * as it writes them (docs/email.md, "Delivery"); the Message-ID recorded is the one it wrote.
   * With `dkim`, nodemailer signs it on the way out, so the signature covers exactly the bytes
   * written. Retries are the delivery job's (counted, backed off, recorded): nothing is resent here.
   */
  async deliver(mail: Mail.Options, dkim?: DkimKey): Promise<DeliveryResult> {
    if (!this.pool) throw new Error('SMTP_URL is not set');
    try {
      const info = await this.pool.sendMail({ ...mail, ...(dkim ? { dkim } : {}) });
      return { ok: true, response: info.response ?? '', messageId: info.messageId ?? null };
    } catch (err) {
      const e = err as Error & { responseCode?: number; response?: string; code?: string };
      const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600;
      const error = (e.response ?? e.message ?? String(err)).slice(0, 1000);
      this.logger.warn({ error, code: e.code, responseCode: e.responseCode }, smtpFailure(e));
      return { ok: false, permanent, error };
    }
  }

  onModuleDestroy(): void {
    this.pool?.close();
  }
}

/**
 * What went wrong, as an operator would look for it: the server did not answer (address, port,
 * TLS, DNS), it refused the login, or it answered and refused this message (with its reply code).
 */
export function smtpFailure(e: { code?: string; responseCode?: number }): string {
  if (e.code === 'EAUTH') return 'The SMTP server refused the login of SMTP_URL';
  if (typeof e.responseCode === 'number') return `The SMTP server refused a message (${e.responseCode})`;
  if (e.code === 'ECONNECTION' || e.code === 'ESOCKET' || e.code === 'ETIMEDOUT' || e.code === 'EDNS')
    return `The SMTP server of SMTP_URL could not be reached (${e.code})`;
  return `Sending through the SMTP server failed${e.code ? ` (${e.code})` : ''}`;
}
