import { KeyObject, verify, X509Certificate } from 'node:crypto';
import {
  MalformedEvent,
  messageIdOf,
  Parsed,
  ProviderEvent,
  record,
  recipientOf,
  statusIn,
  text,
} from './provider-event';

/**
 * Amazon SES reports bounces and complaints through an SNS topic, which posts to an HTTPS
 * subscription (docs/deliverability.md, "Amazon SES"). Every SNS message is signed: RSA over a
 * canonical string of its fields, with the certificate at `SigningCertURL` (AWS's documentation,
 * "Verifying the signatures of Amazon SNS messages").
 */

/** How old a message's Timestamp may be (AWS SDKs' validators: an hour), and how far ahead of our clock. */
export const SNS_MAX_AGE_SECONDS = 3600;
export const SNS_MAX_AHEAD_SECONDS = 300;
/** The largest certificate accepted (an SNS one is about 2 KB). */
export const SNS_CERT_MAX_BYTES = 64 * 1024;

export type SnsType = 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';
const TYPES = new Set<string>(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation']);

/** The fields each type signs, in the canonical (byte) order; `Subject` only when present. */
const SIGNED: Record<SnsType, readonly string[]> = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};
const OPTIONAL = new Set(['Subject']);

/** SignatureVersion 1 is SHA1withRSA, 2 SHA256withRSA; no other is accepted. */
const DIGESTS: Record<string, string> = { '1': 'sha1', '2': 'sha256' };

/** An SNS message whose shape was checked (not yet its signature). */
export interface SnsMessage {
  Type: SnsType;
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  Signature: string;
  SignatureVersion: string;
  SigningCertURL: string;
  Subject?: string;
  SubscribeURL?: string;
  Token?: string;
}

/** A body that is not an SNS message (a field missing or not text): the caller answers 401, as for no signature. */
export class NotSns extends Error {}

/** The SNS message of a parsed body, every field it signs and its signature present as text. */
export function snsMessage(body: unknown): SnsMessage {
  const b = record(body);
  const type = b.Type;
  if (typeof type !== 'string' || !TYPES.has(type)) throw new NotSns('Type is not an SNS message type');
  const required = [
    ...SIGNED[type as SnsType].filter((f) => !OPTIONAL.has(f)),
    'Signature',
    'SignatureVersion',
    'SigningCertURL',
  ];
  for (const field of required) {
    if (typeof b[field] !== 'string' || b[field] === '') throw new NotSns(`${field} is missing`);
  }
  if (b.Subject !== undefined && b.Subject !== null && typeof b.Subject !== 'string')
    throw new NotSns('Subject is not text');
  return b as unknown as SnsMessage;
}

/**
 * The string SNS signs: for each signed field of the type, in byte order, its name, a newline,
 * its value, a newline. `Subject` only when the message has one.
 */
export function snsCanonicalString(message: SnsMessage): string {
  const fields = message as unknown as Record<string, unknown>;
  let out = '';
  for (const name of SIGNED[message.Type]) {
    const value = fields[name];
    if (OPTIONAL.has(name) && typeof value !== 'string') continue;
    out += `${name}\n${value as string}\n`;
  }
  return out;
}

/**
 * Whether `url` may be fetched for SNS: https on `sns.<region>.amazonaws.com` (or `.com.cn`), the
 * default port, no credentials. A certificate's URL must also end in `.pem` with no query. Checked
 * before any fetch: a stranger must never make the server call an address of their choosing.
 */
export function snsUrlAllowed(url: string, kind: 'certificate' | 'subscribe'): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol !== 'https:' || u.port !== '' || u.username !== '' || u.password !== '') return false;
  if (!/^sns\.[a-z0-9-]{3,40}\.amazonaws\.com(?:\.cn)?$/.test(u.hostname)) return false;
  // A certificate's URL as SNS writes it: canonical (no dot segments, no case games), one .pem file.
  if (kind === 'certificate')
    return u.href === url && u.search === '' && u.hash === '' && /^\/[A-Za-z0-9._-]{1,200}\.pem$/.test(u.pathname);
  return u.hash === '';
}

export type SnsAge = 'ok' | 'stale' | 'malformed';

/** Whether the message's Timestamp is at most an hour old (and not from a clock far ahead). */
export function snsAge(timestamp: string, nowMs: number): SnsAge {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/.test(timestamp)) return 'malformed';
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return 'malformed';
  const age = (nowMs - at) / 1000;
  return age > SNS_MAX_AGE_SECONDS || age < -SNS_MAX_AHEAD_SECONDS ? 'stale' : 'ok';
}

/** The RSA public key of a PEM certificate that is valid now; null when it is none of that. */
export function snsCertificateKey(pem: string, nowMs: number): KeyObject | null {
  try {
    const cert = new X509Certificate(pem);
    if (Date.parse(cert.validFrom) > nowMs || Date.parse(cert.validTo) < nowMs) return null;
    return cert.publicKey.asymmetricKeyType === 'rsa' ? cert.publicKey : null;
  } catch {
    return null;
  }
}

/** Whether the message's Signature is the certificate key's, by its SignatureVersion. */
export function verifySns(message: SnsMessage, key: KeyObject): boolean {
  const digest = DIGESTS[message.SignatureVersion];
  if (!digest || !/^[A-Za-z0-9+/]{16,2000}={0,2}$/.test(message.Signature)) return false;
  try {
    return verify(
      digest,
      Buffer.from(snsCanonicalString(message), 'utf8'),
      key,
      Buffer.from(message.Signature, 'base64'),
    );
  } catch {
    return false;
  }
}

/** Whether a SignatureVersion is one we verify (checked before a certificate is fetched). */
export function snsSignatureVersionKnown(version: string): boolean {
  return Object.hasOwn(DIGESTS, version);
}

/**
 * The SES event an SNS Notification carries in `Message` (AWS, "Amazon SNS notification contents
 * for Amazon SES" and event publishing): `notificationType` (identity notifications) or
 * `eventType` (a configuration set's event destination). `Bounce` gives one event per
 * `bouncedRecipients` entry (Permanent: hard; Transient and Undetermined: soft); `Complaint` one
 * per `complainedRecipients` entry (but `complaintFeedbackType: not-spam`, which is no complaint).
 * Everything else (Delivery, Send, Open, DeliveryDelay…) is ignored.
 */
export function parseSes(messageText: string): Parsed[] {
  let event: Record<string, unknown>;
  try {
    const parsed = JSON.parse(messageText) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    event = parsed as Record<string, unknown>;
  } catch {
    throw new MalformedEvent('The SNS Message is not an SES event (JSON object)');
  }
  const type = text(event.notificationType) ?? text(event.eventType);
  if (!type) throw new MalformedEvent('The SES event has no notificationType nor eventType');
  if (type !== 'Bounce' && type !== 'Complaint') return ['ignored'];
  const mail = record(event.mail);
  const base = {
    source: 'ses' as const,
    messageId: sesMessageId(mail),
    envelopeSender: addressIn(text(mail.source, 640)),
    // SES keeps our envelope sender (mail.source): VERP names the message, no header is needed.
    verpToken: null,
  };
  if (type === 'Complaint') {
    const complaint = record(event.complaint);
    const feedback = text(complaint.complaintFeedbackType);
    const recipients = list(complaint.complainedRecipients, 'complainedRecipients');
    if (feedback === 'not-spam') return recipients.map(() => 'ignored' as const);
    const diagnostic = `ses: complaint${feedback ? ` (${feedback})` : ''}`;
    return recipients.map((r): ProviderEvent => ({
      ...base,
      kind: 'complaint',
      recipient: recipientOf(r.emailAddress),
      status: null,
      diagnostic,
    }));
  }
  const bounce = record(event.bounce);
  const bounceType = text(bounce.bounceType);
  if (bounceType !== 'Permanent' && bounceType !== 'Transient' && bounceType !== 'Undetermined')
    throw new MalformedEvent('A Bounce needs a bounceType of Permanent, Transient or Undetermined');
  const subType = text(bounce.bounceSubType);
  return list(bounce.bouncedRecipients, 'bouncedRecipients').map((r): ProviderEvent => {
    const code = text(r.diagnosticCode);
    return {
      ...base,
      kind: bounceType === 'Permanent' ? 'hard' : 'soft',
      recipient: recipientOf(r.emailAddress),
      status: statusIn(text(r.status), code),
      diagnostic: [`${bounceType}${subType ? `/${subType}` : ''}`, code].filter(Boolean).join(': '),
    };
  });
}

/** The recipients' array of a bounce or complaint: objects, at least one, at most 100 (SES's limit per message is 50). */
function list(value: unknown, name: string): Array<Record<string, unknown>> {
  if (!Array.isArray(value) || value.length === 0 || value.length > 100)
    throw new MalformedEvent(`The SES event needs ${name} (1 to 100)`);
  return value.map(record);
}

/**
 * Our Message-ID as we sent it: SES puts its own in the sent mail, but the notification's
 * `mail.headers` (and `commonHeaders.messageId`) are the original's, when the identity's
 * notifications include the original headers or the event comes from a configuration set.
 */
function sesMessageId(mail: Record<string, unknown>): string | null {
  if (Array.isArray(mail.headers)) {
    for (const h of mail.headers.slice(0, 500)) {
      const header = record(h);
      if (typeof header.name === 'string' && header.name.toLowerCase() === 'message-id')
        return messageIdOf(header.value);
    }
  }
  return messageIdOf(record(mail.commonHeaders).messageId);
}

/** The address of `Name <address>` or a bare address. */
function addressIn(value: string | null): string | null {
  if (!value) return null;
  const bracketed = /<([^<>\s]+)>\s*$/.exec(value);
  return bracketed ? bracketed[1] : value;
}
