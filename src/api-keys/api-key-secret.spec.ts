import { API_KEY_PATTERN } from '../common/auth/principal';
import { describeApiKey, generateApiKey, generateApiKeyLike, hashApiKey, randomBase62 } from './api-key-secret';

describe('API key secrets', () => {
  it('generates keys of the documented form, all different', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const k of keys) expect(k).toMatch(API_KEY_PATTERN);
  });

  it("rolls a key into a new secret of the same kind, read from the old one's shown prefix", () => {
    const live = generateApiKeyLike(describeApiKey(generateApiKey()).prefix);
    expect(live).toMatch(/^sb_live_[A-Za-z0-9]{40}$/);
    expect(generateApiKeyLike('sb_test_ABCD')).toMatch(/^sb_test_[A-Za-z0-9]{40}$/);
    expect(generateApiKeyLike('sb_pub_ABCDE')).toMatch(/^sb_pub_[A-Za-z0-9]{40}$/);
    expect(generateApiKeyLike('sb_live_ABCD')).not.toBe(generateApiKeyLike('sb_live_ABCD'));
  });

  it('uses the whole base62 alphabet', () => {
    const chars = new Set(randomBase62(20_000));
    expect(chars.size).toBe(62);
  });

  it('hashes with SHA-256 and shows only a prefix and the last 4', () => {
    // Known answer, computed independently (sha256sum).
    expect(hashApiKey('sb_live_abc')).toBe('d62f63885c2a16346ff62a3fc955a1800df34f1cd62dda7e29ec2ce188529b9c');
    expect(hashApiKey('sb_live_abc')).not.toBe(hashApiKey('sb_live_abd'));
    expect(describeApiKey('sb_live_ABCDEFGHWXYZ')).toEqual({ prefix: 'sb_live_ABCD', last4: 'WXYZ' });
  });
});
