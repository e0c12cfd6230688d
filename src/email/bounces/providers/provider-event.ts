import type { BounceKind } from '../../entities/email-bounce.entity';

/** The relays whose bounce and complaint events Sitebase reads (docs/deliverability.md). */
export const PROVIDERS = ['ses', 'postmark', 'mailgun', 'sendgrid'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/**
 * One bounce or complaint as a provider reports it, in the one model every adapter makes of its
 * payload; BouncesService.recordProviderEvent ties it to a message as it does a DSN.
 */
export interface ProviderEvent {
  kind: BounceKind;
  source: ProviderName;
  /** RFC 3463 status (`5.1.1`), when given. */
  status: string | null;
  diagnostic: string | null;
  /** The address that bounced or complained (lower-cased): the message must have been sent to it. */
  recipient: string;
  /** The Message-ID of the original, without angle brackets. */
  messageId: string | null;
  /** The original's envelope sender as the provider saw it (our VERP address, with BOUNCE_DOMAIN). */
  envelopeSender: string | null;
  /**
   * The VERP token the copy carried in the provider's own per-message field (provider-headers.ts),
   * not yet verified: BouncesService checks its signature as it does a VERP address's.
   */
  verpToken: string | null;
}

/** What a signed call carried that is no bounce nor complaint (a delivery, an open): answered and ignored. */
export type Parsed = ProviderEvent | 'ignored';

/** A payload that verified but does not read as the provider's event: a 400. */
export class MalformedEvent extends Error {}

const STATUS = /^[245]\.\d{1,3}\.\d{1,3}$/;

/** A text field of a parsed JSON object, trimmed and bounded; null when absent or not text. */
export function text(value: unknown, max = 1000): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return null;
  const t = value.trim();
  return t === '' ? null : t.slice(0, max);
}

/** An object field, or an empty object. */
export function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The address an event names, lower-cased; a MalformedEvent when it names none. */
export function recipientOf(value: unknown): string {
  const address = text(value, 320)?.replace(/^<|>$/g, '').toLowerCase();
  if (!address || !/^[^\s@]+@[^\s@]+$/.test(address)) throw new MalformedEvent('The event names no recipient address');
  return address;
}

/** A Message-ID without its angle brackets, or null. */
export function messageIdOf(value: unknown): string | null {
  const id = text(value, 998)?.replace(/^<|>$/g, '').trim();
  return id && !/[\s<>]/.test(id) ? id : null;
}

/** An RFC 3463 status found in a text (`5.1.1`), or null. */
export function statusIn(...texts: Array<string | null>): string | null {
  for (const t of texts) {
    const m = t ? /(?:^|[\s;(])([245]\.\d{1,3}\.\d{1,3})(?=$|[\s;).,])/.exec(t) : null;
    if (m && STATUS.test(m[1])) return m[1];
  }
  return null;
}
