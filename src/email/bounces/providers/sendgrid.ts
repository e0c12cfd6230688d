import { KeyObject, verify } from 'node:crypto';
import { correlationToken } from '../provider-headers';
import { MalformedEvent, messageIdOf, Parsed, record, recipientOf, statusIn, text } from './provider-event';

export const SENDGRID_SIGNATURE_HEADER = 'x-twilio-email-event-webhook-signature';
export const SENDGRID_TIMESTAMP_HEADER = 'x-twilio-email-event-webhook-timestamp';
/** How far the signed timestamp may be from now, either way (seconds). */
export const SENDGRID_TOLERANCE_SECONDS = 300;
/** Events one call may carry (SendGrid batches up to about 1,000 per POST, bounded by our body limit). */
export const SENDGRID_MAX_EVENTS = 5000;

export type SendgridCheck = 'ok' | 'malformed' | 'stale' | 'mismatch';

/**
 * SendGrid's Signed Event Webhook: the signature header holds the base64 DER ECDSA signature
 * (SHA-256) of the timestamp header's text followed by the raw body's bytes.
 */
export function verifySendgrid(
  signature: string | string[] | undefined,
  timestamp: string | string[] | undefined,
  raw: Buffer,
  key: KeyObject,
  nowSeconds: number,
): SendgridCheck {
  if (typeof timestamp !== 'string' || !/^[1-9]\d{0,11}$/.test(timestamp)) return 'malformed';
  if (typeof signature !== 'string' || !/^[A-Za-z0-9+/]{8,200}={0,2}$/.test(signature)) return 'malformed';
  if (Math.abs(nowSeconds - Number(timestamp)) > SENDGRID_TOLERANCE_SECONDS) return 'stale';
  const signed = Buffer.concat([Buffer.from(timestamp, 'utf8'), raw]);
  try {
    return verify('sha256', signed, { key, dsaEncoding: 'der' }, Buffer.from(signature, 'base64')) ? 'ok' : 'mismatch';
  } catch {
    return 'mismatch';
  }
}

/**
 * One event of the batch: `bounce` (type `bounce` hard, `blocked` soft) and `spamreport`; the
 * rest (delivered, deferred, dropped: SendGrid's own suppression, nothing new, opens…) is ignored.
 * `smtp-id` is missing from engagement events such as `spamreport`: the message is named by the
 * `unique_args` token, a top-level field of every event (provider-headers.ts).
 */
export function parseSendgrid(item: unknown): Parsed {
  const e = record(item);
  const event = text(e.event);
  if (!event) throw new MalformedEvent('An event has no `event`');
  if (event !== 'bounce' && event !== 'spamreport') return 'ignored';
  const base = {
    source: 'sendgrid' as const,
    recipient: recipientOf(e.email),
    messageId: messageIdOf(e['smtp-id']),
    envelopeSender: null,
    verpToken: correlationToken(e),
  };
  if (event === 'spamreport') return { ...base, kind: 'complaint', status: null, diagnostic: 'sendgrid: spamreport' };
  const type = text(e.type) ?? 'bounce';
  const reason = text(e.reason);
  return {
    ...base,
    kind: type === 'blocked' ? 'soft' : 'hard',
    status: statusIn(text(e.status), reason),
    diagnostic: [type, reason].filter(Boolean).join(': '),
  };
}
