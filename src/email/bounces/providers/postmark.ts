import { sameText } from '../../../common/auth/same-text';
import { correlationToken } from '../provider-headers';
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

/**
 * Postmark's bounce types (its Bounce API, "Bounce types"): `HardBounce` (unknown user, mailbox
 * not found) and `BadEmailAddress` (not a valid address) say the address is bad: hard.
 * `SoftBounce`, `Transient`, `DnsError` are temporary: soft. `Blocked` (the receiver's ISP blocked
 * it for its content or a blocklist), `SpamNotification` (delivered but blocked by the user or
 * filed as spam) and `DMARCPolicy` (refused by the From domain's DMARC policy) are the receiver's
 * decision about the sender or the content, not a bad address: soft, so only repeated ones within
 * the window suppress the address. The rest is no bounce of ours, and is ignored: auto-replies,
 * challenges, subscribe/unsubscribe requests, and `ManuallyDeactivated`, `Unconfirmed`,
 * `SMTPApiError`: Postmark's own account state (like SendGrid's `dropped`), no report from a receiver.
 */
const HARD = new Set(['HardBounce', 'BadEmailAddress']);
const SOFT = new Set(['SoftBounce', 'Transient', 'DnsError', 'Blocked', 'SpamNotification', 'DMARCPolicy']);

/**
 * `RecordType` Bounce (by `Type`) and SpamComplaint; every other record is ignored. `MessageID` is
 * Postmark's own id (a GUID), ours only if Postmark kept it: the message is named by the token in
 * `Metadata` (provider-headers.ts).
 */
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
    verpToken: correlationToken(record(b.Metadata)),
  };
  if (type === 'SpamComplaint')
    return { ...base, kind: 'complaint', status: null, diagnostic: 'postmark: spam complaint' };
  const bounce = text(b.Type);
  const kind = bounce && HARD.has(bounce) ? 'hard' : bounce && SOFT.has(bounce) ? 'soft' : null;
  if (!kind) return 'ignored';
  const details = text(b.Details);
  return { ...base, kind, status: statusIn(details), diagnostic: [bounce, details].filter(Boolean).join(': ') };
}
