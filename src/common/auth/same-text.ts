import { timingSafeEqual } from 'node:crypto';

/**
 * Whether a signature (or token) a client sent is exactly the text the server would write, in
 * constant time. Signed tokens are compared in their canonical spelling, never after decoding:
 * `Buffer.from(text, 'base64url')` also takes `+`, `/`, `=`, ignores characters outside the
 * alphabet and the unused low bits of the last character, so one signature has many spellings
 * (16 for a 128-bit one), each a fresh key for per-token throttles and counts (docs/security.md,
 * "Signed tokens: one spelling").
 */
export function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
