import {
  hashOtpCode,
  hashSessionToken,
  newOtpCode,
  newSalt,
  newSessionToken,
  normaliseEmail,
  otpCodeMatches,
} from './otp-code';

describe('one-time codes and session tokens', () => {
  it('makes 6-digit codes, zero-padded, spread over the whole range', () => {
    const codes = Array.from({ length: 2000 }, newOtpCode);
    expect(codes.every((c) => /^\d{6}$/.test(c))).toBe(true);
    expect(new Set(codes).size).toBeGreaterThan(1990);
    expect(codes.some((c) => c.startsWith('0'))).toBe(true);
  });

  it('stores a code as a salted HMAC and matches it in constant time', () => {
    const salt = newSalt();
    const stored = hashOtpCode(salt, '123456');
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).not.toContain('123456');
    expect(hashOtpCode(newSalt(), '123456')).not.toBe(stored);
    expect(otpCodeMatches(salt, stored, '123456')).toBe(true);
    expect(otpCodeMatches(salt, stored, '123457')).toBe(false);
    expect(otpCodeMatches(salt, 'abcd', '123456')).toBe(false);
  });

  it('makes opaque session tokens and stores their hash', () => {
    const token = newSessionToken();
    expect(token).toMatch(/^sbs_[A-Za-z0-9_-]{43}$/);
    expect(hashSessionToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(newSessionToken()).not.toBe(token);
  });

  it('normalises addresses', () => {
    expect(normaliseEmail('  Ada@Example.COM ')).toBe('ada@example.com');
  });
});
