import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** A 6-digit code from a cryptographic source, zero-padded (`004217`). */
export function newOtpCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

export function newSalt(): string {
  return randomBytes(16).toString('hex');
}

/** The stored form of a code: an HMAC keyed by the row's random salt. */
export function hashOtpCode(salt: string, code: string): string {
  return createHmac('sha256', salt).update(code).digest('hex');
}

/** Compares a typed code with the stored hash in constant time. */
export function otpCodeMatches(salt: string, storedHash: string, code: string): boolean {
  const given = Buffer.from(hashOtpCode(salt, code), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/** A session token: `sbs_` and 32 random bytes in base64url (256 bits). */
export function newSessionToken(): string {
  return `sbs_${randomBytes(32).toString('base64url')}`;
}

/** The stored form of a session token (tokens are long and random: a plain SHA-256 is enough). */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Addresses are compared trimmed and lower-case. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
