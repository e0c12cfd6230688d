import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The signature of a fulfillment provider's notification (docs/orders.md), modelled on Stripe's:
 *
 *   x-sitebase-signature: t=1795567200,v1=bf885cd65895fe7e65933ef7ca400afd9c2a6ce16bb40d73a104844149caa654
 *
 * `t` is the Unix time (seconds) the provider signed at; each `v1` is the hex HMAC-SHA256, keyed
 * with the site's fulfillment secret (its UTF-8 bytes, `fsec_…` included), of `<t>.<raw body>`.
 * Several `v1` may be sent (a provider that holds two secrets); one that verifies is enough.
 * Other keys (`v0`, future schemes) are ignored. One spelling each (docs/security.md): `t` without
 * leading zeros, `v1` in lower-case hex as `digest('hex')` writes it; other spellings are malformed.
 */
export const SIGNATURE_HEADER = 'x-sitebase-signature';

/** How far `t` may be from now, either way (seconds): older is a replay, newer a wrong clock. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export interface ParsedSignature {
  timestamp: number;
  /** The `v1` signatures, as 32-byte buffers. */
  signatures: Buffer[];
}

/** A new secret: `fsec_` and 32 random bytes in base64url. */
export function newFulfillmentSecret(): string {
  return `fsec_${randomBytes(32).toString('base64url')}`;
}

/** The header's parts, or null when it is missing or malformed (no `t`, no well-formed `v1`). */
export function parseSignatureHeader(header: string | string[] | undefined): ParsedSignature | null {
  if (typeof header !== 'string' || header.length > 2048) return null;
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== null || !/^(?:0|[1-9][0-9]{0,11})$/.test(value)) return null;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/.test(value)) return null;
      signatures.push(Buffer.from(value, 'hex'));
    }
  }
  if (timestamp === null || signatures.length === 0 || signatures.length > 8) return null;
  return { timestamp, signatures };
}

/** HMAC-SHA256(secret, `<t>.<body>`), raw. */
export function signatureOf(secret: string, timestamp: number, body: Buffer | string): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
}

/** The header a provider sends for `body` at `timestamp` (also what tests and docs sign with). */
export function signatureHeader(secret: string, timestamp: number, body: Buffer | string): string {
  return `t=${timestamp},v1=${signatureOf(secret, timestamp, body).toString('hex')}`;
}

export type SignatureCheck = 'ok' | 'malformed' | 'stale' | 'mismatch';

/**
 * Whether the header signs `body` with one of `secrets`, at a time within the tolerance of
 * `nowSeconds`. Every signature is compared with every secret in constant time (no early
 * exit on the first byte that differs, nor on the first match).
 */
export function verifySignature(
  header: string | string[] | undefined,
  body: Buffer,
  secrets: string[],
  nowSeconds: number,
): SignatureCheck {
  const parsed = parseSignatureHeader(header);
  if (!parsed) return 'malformed';
  if (Math.abs(nowSeconds - parsed.timestamp) > SIGNATURE_TOLERANCE_SECONDS) return 'stale';
  let ok = false;
  for (const secret of secrets) {
    const expected = signatureOf(secret, parsed.timestamp, body);
    for (const given of parsed.signatures) ok = timingSafeEqual(expected, given) || ok;
  }
  return ok ? 'ok' : 'mismatch';
}
