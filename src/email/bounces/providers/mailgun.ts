import { createHmac } from 'node:crypto';
import { sameText } from '../../../common/auth/same-text';
import { correlationToken } from '../provider-headers';
import { MalformedEvent, messageIdOf, Parsed, record, recipientOf, statusIn, text } from './provider-event';

/** How far a Mailgun signature's timestamp may be from now, either way (seconds). */
export const MAILGUN_TOLERANCE_SECONDS = 300;

export type MailgunCheck = 'ok' | 'malformed' | 'stale' | 'mismatch';

/**
 * Mailgun's webhook signature (its docs, "Securing Webhooks"): the body's `signature` object
 * holds `timestamp` (Unix seconds), `token` (50 random characters) and `signature`, the hex
 * HMAC-SHA256 of timestamp + token keyed with the account's webhook signing key. The token is
 * the replay key (the caller keeps the ones it has seen while they are fresh).
 */
export function verifyMailgun(body: unknown, signingKey: string, nowSeconds: number): MailgunCheck {
  const sig = record(record(body).signature);
  const { timestamp, token, signature } = sig;
  if (typeof timestamp !== 'string' || !/^[1-9]\d{0,11}$/.test(timestamp)) return 'malformed';
  if (typeof token !== 'string' || !/^[A-Za-z0-9]{1,200}$/.test(token)) return 'malformed';
  if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/.test(signature)) return 'malformed';
  if (Math.abs(nowSeconds - Number(timestamp)) > MAILGUN_TOLERANCE_SECONDS) return 'stale';
  const expected = createHmac('sha256', signingKey).update(timestamp).update(token).digest('hex');
  return sameText(signature, expected) ? 'ok' : 'mismatch';
}

/** The token of a verified body (its replay key). */
export function mailgunToken(body: unknown): string {
  return record(record(body).signature).token as string;
}

/**
 * `event-data` of a verified body (Mailgun's "Webhook Payloads"): `failed` with `severity`
 * permanent (hard) or temporary (soft), `complained`; every other event, and a `failed` that is
 * Mailgun's own suppression (`reason: suppress-…`), is ignored. The message is named by the
 * token in `user-variables` (X-Mailgun-Variables, provider-headers.ts), else by VERP or Message-ID.
 */
export function parseMailgun(body: unknown): Parsed {
  const data = record(record(body)['event-data']);
  const event = text(data.event);
  if (!event) throw new MalformedEvent('The body has no event-data.event');
  if (event !== 'failed' && event !== 'complained') return 'ignored';
  // `reason: suppress-bounce|suppress-complaint|suppress-unsubscribe`: Mailgun did not send, its own
  // suppression list held the address (as SendGrid's `dropped`): no new report, and a complaint's
  // drop is no bounce.
  if (event === 'failed' && text(data.reason)?.startsWith('suppress-')) return 'ignored';
  const message = record(data.message);
  const headers = record(message.headers);
  const base = {
    source: 'mailgun' as const,
    recipient: recipientOf(data.recipient),
    messageId: messageIdOf(headers['message-id']),
    envelopeSender: text(record(data.envelope).sender, 320),
    verpToken: correlationToken(record(data['user-variables'])),
  };
  if (event === 'complained') return { ...base, kind: 'complaint', status: null, diagnostic: 'mailgun: complained' };
  const severity = text(data.severity);
  if (severity !== 'permanent' && severity !== 'temporary') throw new MalformedEvent('A failed event needs a severity');
  const delivery = record(data['delivery-status']);
  const diagnostic =
    [text(delivery.code), text(delivery.message), text(delivery.description)].filter(Boolean).join(' ') || null;
  return {
    ...base,
    kind: severity === 'permanent' ? 'hard' : 'soft',
    status: statusIn(text(delivery['enhanced-code']), diagnostic),
    diagnostic,
  };
}
