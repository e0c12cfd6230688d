import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * VERP (docs/deliverability.md): each message's envelope sender is
 * `bounces+<id>-<mac>@<BOUNCE_DOMAIN>`, so a bounce sent to it names the message without reading
 * its body. `<id>` is the message id in base 36 and `<mac>` the first 80 bits of
 * HMAC-SHA256(key, "verp:<id>") in base32 (RFC 4648 alphabet, lower case, no padding): letters and
 * digits only, because some MTAs lower-case local parts. A token is read in any case and accepted
 * only in its canonical spelling (no leading zeros, exactly 16 signature characters).
 */
export const VERP_PREFIX = 'bounces';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const MAC_CHARS = 16;
const TOKEN = /^([1-9a-z][0-9a-z]{0,12})-([a-z2-7]{16})$/;

function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function mac(key: Buffer, messageId: number): string {
  return base32(createHmac('sha256', key).update(`verp:${messageId}`).digest().subarray(0, 10)).slice(0, MAC_CHARS);
}

/** The token of a message: `<id base 36>-<mac>`. */
export function verpToken(key: Buffer, messageId: number): string {
  if (!Number.isSafeInteger(messageId) || messageId <= 0) throw new Error('A message id is a positive integer');
  return `${messageId.toString(36)}-${mac(key, messageId)}`;
}

/** The envelope sender of a message. */
export function verpAddress(key: Buffer, messageId: number, domain: string): string {
  return tokenAddress(verpToken(key, messageId), domain);
}

/** The envelope sender that carries a token. */
export function tokenAddress(token: string, domain: string): string {
  return `${VERP_PREFIX}+${token}@${domain}`;
}

/** The message a token names, or null when it is malformed, not canonical or not signed with `key`. */
export function readVerpToken(key: Buffer, token: string): number | null {
  const m = TOKEN.exec(token.toLowerCase());
  if (!m) return null;
  const id = parseInt(m[1], 36);
  if (!Number.isSafeInteger(id) || id.toString(36) !== m[1]) return null;
  const expected = Buffer.from(mac(key, id));
  const given = Buffer.from(m[2]);
  return expected.length === given.length && timingSafeEqual(expected, given) ? id : null;
}

/**
 * What an address at the bounce domain is: `plain` (`bounces@…`, e.g. a forwarded mailbox's
 * reports, matched by their contents), `token` (`bounces+<token>@…`, still to be verified) or
 * `foreign` (another local part or domain: not ours, never relayed). Case-insensitive.
 */
export function classifyBounceAddress(
  address: string,
  domain: string,
): { kind: 'plain' } | { kind: 'token'; token: string } | { kind: 'foreign' } {
  const at = address.lastIndexOf('@');
  if (at < 0 || address.slice(at + 1).toLowerCase() !== domain.toLowerCase()) return { kind: 'foreign' };
  const local = address.slice(0, at).toLowerCase();
  if (local === VERP_PREFIX) return { kind: 'plain' };
  if (local.startsWith(`${VERP_PREFIX}+`)) return { kind: 'token', token: local.slice(VERP_PREFIX.length + 1) };
  return { kind: 'foreign' };
}
