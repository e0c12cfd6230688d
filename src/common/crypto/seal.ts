import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * Sealing: AES-256-GCM under a 32-byte key, a fresh 96-bit IV each time, and an optional
 * context (GCM's additional data) that must be given again to open: a value sealed for one row
 * does not open as another's. What keeps stored secrets unreadable to whoever reads the table
 * (the idempotency store's replayed answers, the sealed values of a mail; docs/security.md).
 */
export interface SealedParts {
  iv: Buffer;
  tag: Buffer;
  data: Buffer;
}

const IV_BYTES = 12;
const TEXT_VERSION = 'v1';

export function sealBytes(key: Buffer, plain: Buffer, context = ''): SealedParts {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (context !== '') cipher.setAAD(Buffer.from(context, 'utf8'));
  const data = Buffer.concat([cipher.update(plain), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), data };
}

/** The bytes sealBytes sealed; throws if the key or context differ, or anything was altered. */
export function openBytes(key: Buffer, sealed: SealedParts, context = ''): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv);
  if (context !== '') decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(sealed.tag);
  return Buffer.concat([decipher.update(sealed.data), decipher.final()]);
}

/** A JSON value sealed as one text column: `v1.<iv>.<tag>.<data>`, base64url. */
export function sealJson(key: Buffer, value: unknown, context: string): string {
  const { iv, tag, data } = sealBytes(key, Buffer.from(JSON.stringify(value ?? null), 'utf8'), context);
  return [TEXT_VERSION, iv, tag, data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/** What sealJson sealed; throws on another key or context, an altered value, or an unknown form. */
export function openJson(key: Buffer, sealed: string, context: string): unknown {
  const [version, iv, tag, data, ...rest] = sealed.split('.');
  if (version !== TEXT_VERSION || data === undefined || rest.length > 0) throw new Error('Not a sealed value');
  const plain = openBytes(
    key,
    { iv: Buffer.from(iv, 'base64url'), tag: Buffer.from(tag, 'base64url'), data: Buffer.from(data, 'base64url') },
    context,
  );
  return JSON.parse(plain.toString('utf8'));
}

/** A 32-byte key for one purpose, derived from a secret (HMAC-SHA256): one secret, unrelated keys. */
export function deriveKey(secret: Buffer, purpose: string): Buffer {
  return createHmac('sha256', secret).update(purpose).digest();
}
