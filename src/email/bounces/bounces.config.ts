import { Setting } from '../../config/setting';
import { int, listenHost, secret, size, token } from '../../config/setting-kinds';
import { mailDomain, sendgridPublicKey, snsTopicArns } from '../../config/setting-shapes';

/** Bounces and complaints (docs/deliverability.md): the VERP domain, the SMTP listener, the relays' webhooks. */
export class BouncesConfig {
  /**
   * The domain of the per-message envelope sender (VERP: `bounces+<token>@<BOUNCE_DOMAIN>`); its MX
   * must reach the bounce listener or a mailbox forwarded to it. Empty: every message's envelope
   * sender is MAIL_FROM's address, as before.
   */
  @Setting(mailDomain(), { when: (c: BouncesConfig) => c.BOUNCE_SMTP_PORT !== 0, because: 'BOUNCE_SMTP_PORT is set' })
  BOUNCE_DOMAIN = '';
  /** The port of the SMTP listener that receives bounces and complaints (DSN, ARF); 0: no listener. */
  @Setting(int(0, 65535)) BOUNCE_SMTP_PORT = 0;
  @Setting(listenHost()) BOUNCE_SMTP_HOST = '0.0.0.0';
  /** The largest report the listener accepts (bytes); a DSN carries at most the original's headers or a part of it. */
  @Setting(size('10kb', '50mb')) BOUNCE_SMTP_MAX_BYTES = 2 * 1024 * 1024;
  /** Messages one client (remote address) may send the listener per minute; past it a 421. 0: no limit. */
  @Setting(int(0, 1_000_000)) BOUNCE_SMTP_RATE_PER_MINUTE = 60;
  /** Soft bounces of an address within BOUNCE_SOFT_WINDOW_DAYS that mark it `bounced`, unless its site says otherwise. */
  @Setting(int(1, 100)) BOUNCE_SOFT_LIMIT = 3;
  @Setting(int(1, 365)) BOUNCE_SOFT_WINDOW_DAYS = 7;
  /** Mailgun's webhook signing key (its events route answers 404 while empty). */
  @Setting(secret(token(16, "Mailgun's signing key"))) MAILGUN_WEBHOOK_SIGNING_KEY = '';
  /** The token Postmark's webhooks send in `x-sitebase-webhook-token` (its route answers 404 while empty). */
  @Setting(secret(token(24, 'a random secret'))) POSTMARK_WEBHOOK_TOKEN = '';
  /** SendGrid's Signed Event Webhook verification key: base64 DER (SPKI) of its ECDSA P-256 public key (its route answers 404 while empty). */
  @Setting(sendgridPublicKey()) SENDGRID_WEBHOOK_PUBLIC_KEY = '';
  /**
   * The SNS topics (ARNs, comma-separated) Amazon SES publishes bounces and complaints to: a
   * signed message of any other topic is refused. Its route answers 404 while empty.
   */
  @Setting(snsTopicArns()) SES_SNS_TOPIC_ARNS: string[] = [];
}
