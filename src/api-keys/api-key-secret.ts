import { createHash, randomBytes } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `n` base62 characters from the CSPRNG, without modulo bias (bytes >= 248 are dropped). */
export function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const byte of randomBytes(n * 2)) {
      if (byte < 248 && out.length < n) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** API.md §2: `sb_live_<40 base62>`; a publishable key is `sb_pub_<40 base62>`. */
export function generateApiKey(kind: 'secret' | 'publishable' = 'secret'): string {
  return `${kind === 'publishable' ? 'sb_pub_' : 'sb_live_'}${randomBase62(40)}`;
}

/** A key's kind, its `sb_<kind>_` (`sb_live_`), read from its plaintext or its shown prefix. */
export function apiKeyKind(plaintextOrPrefix: string): string {
  return /^sb_[a-z]+_/.exec(plaintextOrPrefix)?.[0] ?? 'sb_live_';
}

/** A new secret of the same kind as the one shown as `previousPrefix`: a rolled key keeps its kind. */
export function generateApiKeyLike(previousPrefix: string): string {
  return `${apiKeyKind(previousPrefix)}${randomBase62(40)}`;
}

export function hashApiKey(plaintext: string): string {
  return createHash('sha256').update(plaintext).digest('hex');
}

/** What is shown instead of the key: its first 12 characters and last 4. */
export function describeApiKey(plaintext: string): { prefix: string; last4: string } {
  return { prefix: plaintext.slice(0, 12), last4: plaintext.slice(-4) };
}
