import type { BouncesConfig } from './bounces.config';

/**
 * Tying a relay's events to our messages (docs/deliverability.md, "Which message"): relays put
 * their own envelope sender on what they send and may replace our Message-ID, so each copy also
 * carries its VERP token (`<id>-<mac>`, verp.ts: nothing the Return-Path does not show already)
 * in every configured relay's own per-message field, which that relay returns in each webhook
 * event. The token is verified like a VERP address's when an event comes back (BouncesService).
 */
export const CORRELATION_KEY = 'sitebase_verp';

/** The relays that return a per-message value in their webhook events. */
export type CorrelatingProvider = 'postmark' | 'sendgrid' | 'mailgun';

type WebhookSettings = Pick<
  BouncesConfig,
  'POSTMARK_WEBHOOK_TOKEN' | 'SENDGRID_WEBHOOK_PUBLIC_KEY' | 'MAILGUN_WEBHOOK_SIGNING_KEY'
>;

/** The relays whose webhook setting is configured: only their headers are sent. */
export function correlatingProviders(config: WebhookSettings): CorrelatingProvider[] {
  const providers: CorrelatingProvider[] = [];
  if (config.POSTMARK_WEBHOOK_TOKEN) providers.push('postmark');
  if (config.SENDGRID_WEBHOOK_PUBLIC_KEY) providers.push('sendgrid');
  if (config.MAILGUN_WEBHOOK_SIGNING_KEY) providers.push('mailgun');
  return providers;
}

/**
 * A header value nodemailer writes as it is (`prepared`): neither RFC 2047-encoded nor folded,
 * which it would otherwise do to a JSON value. The relays read these values literally; each is
 * ASCII, one short line, made of our token only.
 */
export interface PreparedHeader {
  prepared: true;
  value: string;
}

/** The headers of a copy, as nodemailer takes them. */
export type CopyHeaders = Record<string, string | PreparedHeader>;

const prepared = (value: string): PreparedHeader => ({ prepared: true, value });

/**
 * The headers that carry `token` to each provider (none without a token):
 * - Postmark: `X-PM-Metadata-sitebase_verp` (its webhooks' `Metadata`; keys up to 20
 *   characters, values up to 80, removed before delivery), and `X-PM-KeepID: true`, which keeps
 *   our Message-ID on the copy rather than Postmark's own (so a report by mail still quotes ours);
 * - SendGrid: `X-SMTPAPI` with `unique_args` (a top-level field of every event; removed before delivery);
 * - Mailgun: `X-Mailgun-Variables` (the events' `user-variables`; left on the delivered copy).
 */
export function correlationHeaders(providers: readonly CorrelatingProvider[], token: string | null): CopyHeaders {
  if (!token) return {};
  const headers: CopyHeaders = {};
  for (const provider of providers) {
    if (provider === 'postmark') {
      headers[`X-PM-Metadata-${CORRELATION_KEY}`] = prepared(token);
      headers['X-PM-KeepID'] = prepared('true');
    } else if (provider === 'sendgrid') {
      headers['X-SMTPAPI'] = prepared(JSON.stringify({ unique_args: { [CORRELATION_KEY]: token } }));
    } else {
      headers['X-Mailgun-Variables'] = prepared(JSON.stringify({ [CORRELATION_KEY]: token }));
    }
  }
  return headers;
}

/**
 * Whether a header is one of the relays' instructions (`X-PM-…`, `X-SMTPAPI`, `X-Mailgun-…`):
 * those of a copy's own headers are dropped, so that only ours reach the relay and one copy never
 * carries two values for the same field.
 */
export function isRelayHeader(name: string): boolean {
  return /^(x-pm-|x-mailgun-|x-smtpapi$)/i.test(name);
}

/** A copy's own headers without relay instructions, with the correlation headers of its token. */
export function copyHeaders(
  own: Record<string, string> | null | undefined,
  providers: readonly CorrelatingProvider[],
  token: string | null,
): CopyHeaders {
  const kept = Object.entries(own ?? {}).filter(([name]) => !isRelayHeader(name));
  return { ...Object.fromEntries(kept), ...correlationHeaders(providers, token) };
}

/**
 * The token an event's correlation field carries (`Metadata`, a SendGrid top-level field,
 * `user-variables`): its text when it has a token's shape, else null. Only its shape is read here;
 * its signature is checked against the VERP key by BouncesService, so a forged one names nothing.
 */
export function correlationToken(fields: Record<string, unknown>): string | null {
  const value = fields[CORRELATION_KEY];
  if (typeof value !== 'string') return null;
  const token = value.trim();
  return /^[0-9a-z]{1,13}-[a-z2-7]{16}$/i.test(token) ? token : null;
}
