import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import nodemailer, { SentMessageInfo, Transporter } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import { AppConfig } from '../config/app-config';

/** What the SMTP server answered for one message. */
export type DeliveryResult =
  | { ok: true; response: string; messageId: string | null }
  /** `permanent`: a 5xx refusal, which no retry will change. */
  | { ok: false; permanent: boolean; error: string };

/**
 * The SMTP connection pool (nodemailer) from SMTP_URL; without it, `configured` is false and
 * messages wait in the database.
 */
@Injectable()
export class EmailTransport implements OnModuleDestroy {
  private readonly logger = new Logger('Email');
  private readonly transporter?: Transporter<SentMessageInfo>;

  constructor(config: AppConfig) {
    if (!config.SMTP_URL) return;
    this.transporter = nodemailer.createTransport({
      url: config.SMTP_URL,
      pool: true,
      maxConnections: config.SMTP_POOL_SIZE,
      maxMessages: 1000,
      // Retries are the delivery job's (counted, backed off, recorded): the pool does not resend
      // on its own when a connection drops mid-message.
      maxRequeues: 0,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    } as never);
  }

  get configured(): boolean {
    return this.transporter !== undefined;
  }

  /**
   * Sends one message. It is composed into one buffer first (nodemailer's MailComposer) and
   * handed to the pool as raw MIME with its envelope: streamed straight into the socket, each
   * encoded line was a write of its own, and those writes cost a campaign send more CPU than
   * composing did. The bytes are the same either way.
   */
  async deliver(mail: Mail.Options): Promise<DeliveryResult> {
    if (!this.transporter) throw new Error('SMTP_URL is not set');
    try {
      const message = new MailComposer(mail).compile();
      const messageId = message.messageId();
      const raw = await message.build();
      const info = (await this.transporter.sendMail({ envelope: mail.envelope, raw })) as { response?: string };
      return { ok: true, response: info.response ?? '', messageId };
    } catch (err) {
      const e = err as Error & { responseCode?: number; response?: string; code?: string };
      const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600;
      const error = (e.response ?? e.message ?? String(err)).slice(0, 1000);
      this.logger.warn({ error, code: e.code, responseCode: e.responseCode }, 'SMTP refused a message');
      return { ok: false, permanent, error };
    }
  }

  onModuleDestroy(): void {
    this.transporter?.close();
  }
}
