import { randomBytes } from 'node:crypto';
import { deriveKey, openJson, sealJson } from './seal';

describe('sealing (AES-256-GCM)', () => {
  const key = deriveKey(randomBytes(32), 'sitebase:test:v1');

  it('round-trips a JSON value in one text of base64url parts, never the plaintext', () => {
    const value = { code: '482913', url: 'https://demo.example/confirm/c.1.abc' };
    const sealed = sealJson(key, value, 'site:1:batch');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('482913');
    expect(openJson(key, sealed, 'site:1:batch')).toEqual(value);
    expect(sealJson(key, value, 'site:1:batch')).not.toBe(sealed);
  });

  it('refuses another key, another context, an altered part or an unknown form', () => {
    const sealed = sealJson(key, { a: 1 }, 'ctx');
    expect(() => openJson(deriveKey(randomBytes(32), 'x'), sealed, 'ctx')).toThrow();
    expect(() => openJson(key, sealed, 'other')).toThrow();
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3], 'base64url');
    flipped[0] ^= 1;
    expect(() => openJson(key, [...parts.slice(0, 3), flipped.toString('base64url')].join('.'), 'ctx')).toThrow();
    expect(() => openJson(key, `v2.${parts.slice(1).join('.')}`, 'ctx')).toThrow();
    expect(() => openJson(key, `${sealed}.x`, 'ctx')).toThrow();
  });

  it('derives unrelated keys for two purposes of one secret', () => {
    const secret = randomBytes(32);
    expect(deriveKey(secret, 'a')).toHaveLength(32);
    expect(deriveKey(secret, 'a').equals(deriveKey(secret, 'b'))).toBe(false);
  });
});
