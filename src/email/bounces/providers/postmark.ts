import { sameText } from '../../../common/auth/same-text';
import { MalformedEvent, messageIdOf, Parsed, record, recipientOf, statusIn, text } from './provider-event';

/**
 * Postmark signs nothing; its webhook URL carries the secret. HTTP Basic credentials in the URL
 * are refused before routing here (the server answers no Basic scheme, docs/security.md), so
 * the webhook is configured with a custom header: `x-sitebase-webhook-token: <POSTMARK_WEBHOOK_TOKEN>`.
 */
export const POSTMARK_TOKEN_HEADER = 'x-sitebase-webhook-token';

/** Whether the header holds the token (constant time). */
export function verifyPostmark(header: string | string[] | undefined, token: string): boolean {
  return typeof header === 'string' && sameText(header, token);
}

/** Bounce types that are a hard bounce; SoftBounce, Transient, DnsError a soft one; the rest (auto-replies, challenges) are no bounce. */
const HARD = new Set(['HardBounce', 'BadEmailAddress', 'ManuallyDeactivated', 'Blocked', 'SpamNotification']);
const SOFT = new Set(['SoftBounce', 'Transient', 'DnsError']);

/** `RecordType` Bounce (by `Type`) and SpamComplaint; every other record is ignored. */
export function parsePostmark(body: unknown): Parsed {
  const b = record(body);
  const type = text(b.RecordType);
  if (!type) throw new MalformedEvent('The body has no RecordType');
  if (type !== 'Bounce' && type !== 'SpamComplaint') return 'ignored';
  const base = {
    source: 'postmark' as const,
    recipient: recipientOf(b.Email),
    messageId: messageIdOf(b.MessageID),
    envelopeSender: null,
  };
  if (type === 'SpamComplaint')
    return { ...base, kind: 'complaint', status: null, diagnostic: 'postmark: spam complaint' };
  const bounce = text(b.Type);
  const kind = bounce && HARD.has(bounce) ? 'hard' : bounce && SOFT.has(bounce) ? 'soft' : null;
  if (!kind) return 'ignored';
  const details = text(b.Details);
  return { ...base, kind, status: statusIn(details), diagnostic: [bounce, details].filter(Boolean).join(': ') };
}
