import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { sameText } from '../../common/auth/same-text';

/**
 * The links a person opens from a mail (docs/newsletter.md, "Links and tokens"). Both are
 * signed with the site's own secret (HMAC-SHA256, 128 bits kept), so a forged or altered token is
 * refused before any row is read:
 * - confirm: `c.<subscriptionId>.<nonce>.<expiresAt in s>.<sig>`; single use, because the
 *   subscription keeps the live nonce and clears it when the link is used (or replaced);
 * - manage (preferences and unsubscribe): `m.<subscriptionId>.<nonce>.<sig>`; no expiry (an
 *   unsubscribe link must keep working, RFC 8058), and the nonce is the subscription's own, so a
 *   deleted and re-created address gets new links;
 * - re-consent: `r.<subscriptionId>.<nonce>.<expiresAt in s>.<sig>`, the confirm link of an address
 *   that complained (docs/deliverability.md, "Only the person lifts a complaint"): only ever in the
 *   fixed mail, and only a POST of it lifts the complaint. Same nonce column as `c`: one live
 *   confirmation per subscription.
 */
export type LinkKind = 'c' | 'm' | 'r';

/** Kinds that expire and work once (the subscription's confirm nonce). */
const EXPIRING: ReadonlySet<LinkKind> = new Set(['c', 'r']);

export interface LinkToken {
  kind: LinkKind;
  subscriptionId: number;
  nonce: string;
  /** Epoch seconds (confirm and re-consent links only). */
  expiresAt?: number;
}

const SIG_BYTES = 16;
const NONCE = /^[A-Za-z0-9_-]{16,64}$/;
const ID = /^[1-9][0-9]{0,15}$/;

export function newNonce(): string {
  return randomBytes(16).toString('base64url');
}

function sign(secret: Buffer, body: string): string {
  return createHmac('sha256', secret).update(body).digest().subarray(0, SIG_BYTES).toString('base64url');
}

export function encodeLinkToken(secret: Buffer, token: LinkToken): string {
  const parts = [token.kind, String(token.subscriptionId), token.nonce];
  if (EXPIRING.has(token.kind)) parts.push(String(token.expiresAt ?? 0));
  const body = parts.join('.');
  return `${body}.${sign(secret, body)}`;
}

/** The token's claims when its shape and signature hold; null for anything forged or malformed. */
export function decodeLinkToken(secret: Buffer, text: string, kind: LinkKind): LinkToken | null {
  const parts = text.split('.');
  const expiring = EXPIRING.has(kind);
  if (parts[0] !== kind || parts.length !== (expiring ? 5 : 4)) return null;
  const [, id, nonce] = parts;
  if (!ID.test(id) || !NONCE.test(nonce)) return null;
  if (expiring && !/^[0-9]{1,12}$/.test(parts[3])) return null;
  // The signature as encodeLinkToken writes it, character for character: one spelling a token.
  if (!sameText(parts[parts.length - 1], sign(secret, parts.slice(0, -1).join('.')))) return null;
  const subscriptionId = Number(id);
  if (!Number.isSafeInteger(subscriptionId)) return null;
  return expiring ? { kind, subscriptionId, nonce, expiresAt: Number(parts[3]) } : { kind, subscriptionId, nonce };
}

/** The token's nonce is `expected` (compared in constant time). */
export function nonceMatches(token: LinkToken, expected: string | null): boolean {
  if (expected === null) return false;
  const a = Buffer.from(token.nonce);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
