import { randomBytes } from 'node:crypto';
import { alternateSpellings, signatureOf, withSignature } from '../../../test/support/token-spellings';
import { decodeLinkToken, encodeLinkToken, newNonce, nonceMatches } from './link-tokens';

describe('newsletter link tokens', () => {
  const secret = randomBytes(32);
  const nonce = newNonce();

  it('round-trips a confirm token and a manage token', () => {
    const confirm = encodeLinkToken(secret, { kind: 'c', subscriptionId: 42, nonce, expiresAt: 1_900_000_000 });
    expect(confirm).toMatch(/^c\.42\.[A-Za-z0-9_-]{22}\.1900000000\.[A-Za-z0-9_-]{22}$/);
    expect(decodeLinkToken(secret, confirm, 'c')).toEqual({
      kind: 'c',
      subscriptionId: 42,
      nonce,
      expiresAt: 1_900_000_000,
    });
    const manage = encodeLinkToken(secret, { kind: 'm', subscriptionId: 7, nonce });
    expect(decodeLinkToken(secret, manage, 'm')).toEqual({ kind: 'm', subscriptionId: 7, nonce });
  });

  it('a re-consent token (r) expires like a confirm token and is never taken for one, nor the other way', () => {
    const reconsent = encodeLinkToken(secret, { kind: 'r', subscriptionId: 42, nonce, expiresAt: 1_900_000_000 });
    expect(reconsent).toMatch(/^r\.42\.[A-Za-z0-9_-]{22}\.1900000000\.[A-Za-z0-9_-]{22}$/);
    expect(decodeLinkToken(secret, reconsent, 'r')).toEqual({
      kind: 'r',
      subscriptionId: 42,
      nonce,
      expiresAt: 1_900_000_000,
    });
    const confirm = encodeLinkToken(secret, { kind: 'c', subscriptionId: 42, nonce, expiresAt: 1_900_000_000 });
    expect(decodeLinkToken(secret, reconsent, 'c')).toBeNull();
    expect(decodeLinkToken(secret, confirm, 'r')).toBeNull();
    // The same claims under the other letter: the signature covers the kind.
    expect(decodeLinkToken(secret, `r${confirm.slice(1)}`, 'r')).toBeNull();
  });

  it('refuses a token of the other kind, another secret, or any altered part', () => {
    const manage = encodeLinkToken(secret, { kind: 'm', subscriptionId: 7, nonce });
    expect(decodeLinkToken(secret, manage, 'c')).toBeNull();
    expect(decodeLinkToken(randomBytes(32), manage, 'm')).toBeNull();
    expect(decodeLinkToken(secret, manage.replace('m.7.', 'm.8.'), 'm')).toBeNull();
    const confirm = encodeLinkToken(secret, { kind: 'c', subscriptionId: 42, nonce, expiresAt: 100 });
    expect(decodeLinkToken(secret, confirm.replace('.100.', '.999999.'), 'c')).toBeNull();
    for (const bad of ['', 'c', 'm.1.x.y', 'm.01.' + nonce + '.AAAA', 'm.1.' + nonce + '.' + 'A'.repeat(22)])
      expect(decodeLinkToken(secret, bad, 'm')).toBeNull();
  });

  it('accepts one spelling of a signature: every other spelling of the same bytes is refused', () => {
    for (const token of [
      encodeLinkToken(secret, { kind: 'c', subscriptionId: 42, nonce, expiresAt: 1_900_000_000 }),
      encodeLinkToken(secret, { kind: 'm', subscriptionId: 7, nonce }),
    ]) {
      const kind = token[0] as 'c' | 'm';
      const spellings = alternateSpellings(signatureOf(token));
      // 15 other last characters (128 bits leave 4 unused), padding, skipped characters.
      expect(spellings.length).toBeGreaterThanOrEqual(20);
      expect(decodeLinkToken(secret, token, kind)).not.toBeNull();
      const accepted = spellings.filter((sig) => decodeLinkToken(secret, withSignature(token, sig), kind) !== null);
      expect(accepted).toEqual([]);
    }
  });

  it('compares nonces exactly', () => {
    const token = { kind: 'm' as const, subscriptionId: 1, nonce };
    expect(nonceMatches(token, nonce)).toBe(true);
    expect(nonceMatches(token, newNonce())).toBe(false);
    expect(nonceMatches(token, null)).toBe(false);
  });
});
