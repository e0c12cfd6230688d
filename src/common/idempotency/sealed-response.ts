import { createHash } from 'node:crypto';
import { openBytes, sealBytes } from '../crypto/seal';

/** A stored response body, AES-256-GCM encrypted (base64 fields). */
export interface SealedBody {
  v: 1;
  iv: string;
  tag: string;
  data: string;
}

const derive = (purpose: string, scope: string, key: string) =>
  createHash('sha256').update(`${purpose}\n${scope}\n${key}`).digest();

/**
 * The stored form of an `Idempotency-Key`: a hash, so reading the table does not give what is
 * needed to open the stored response (below).
 */
export function idempotencyKeyHash(scope: string, key: string): string {
  return derive('sitebase:idempotency:lookup', scope, key).toString('hex');
}

/**
 * Encrypts a response for storage under a key derived from the `Idempotency-Key`, which only the
 * client holds: a replayed response may carry a secret shown once (a new API key), and API.md §2
 * stores no such plaintext.
 */
export function sealBody(body: unknown, scope: string, key: string): SealedBody {
  const { iv, tag, data } = sealBytes(
    derive('sitebase:idempotency:seal', scope, key),
    Buffer.from(JSON.stringify(body ?? null), 'utf8'),
  );
  return { v: 1, iv: iv.toString('base64'), tag: tag.toString('base64'), data: data.toString('base64') };
}

/** Decrypts what sealBody stored; throws if it was sealed under another scope or key, or altered. */
export function openBody(sealed: SealedBody, scope: string, key: string): unknown {
  const plain = openBytes(derive('sitebase:idempotency:seal', scope, key), {
    iv: Buffer.from(sealed.iv, 'base64'),
    tag: Buffer.from(sealed.tag, 'base64'),
    data: Buffer.from(sealed.data, 'base64'),
  });
  return JSON.parse(plain.toString('utf8'));
}
