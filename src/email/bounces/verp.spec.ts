import { classifyBounceAddress, readVerpToken, verpAddress, verpToken } from './verp';

describe('VERP tokens', () => {
  const key = Buffer.alloc(32, 7);
  const other = Buffer.alloc(32, 8);

  it('names the message, short, in letters and digits only', () => {
    const token = verpToken(key, 123456);
    expect(token).toMatch(/^[0-9a-z]+-[a-z2-7]{16}$/);
    expect(token.length).toBeLessThanOrEqual(30);
    expect(readVerpToken(key, token)).toBe(123456);
    expect(verpAddress(key, 1, 'b.example.com')).toBe(`bounces+${verpToken(key, 1)}@b.example.com`);
  });

  it('survives an MTA that changes the case of the local part', () => {
    const token = verpToken(key, 987654321);
    expect(readVerpToken(key, token.toUpperCase())).toBe(987654321);
  });

  it('refuses another key, another id, an altered signature, and spellings that are not canonical', () => {
    const token = verpToken(key, 42);
    const [id, sig] = token.split('-');
    expect(readVerpToken(other, token)).toBeNull();
    expect(readVerpToken(key, `${(43).toString(36)}-${sig}`)).toBeNull();
    expect(readVerpToken(key, `${id}-${sig.slice(0, 15)}${sig[15] === 'a' ? 'b' : 'a'}`)).toBeNull();
    expect(readVerpToken(key, `0${id}-${sig}`)).toBeNull();
    expect(readVerpToken(key, `${id}-${sig}=`)).toBeNull();
    expect(readVerpToken(key, `${id}-${sig.slice(0, 15)}`)).toBeNull();
    expect(readVerpToken(key, '')).toBeNull();
    expect(() => verpToken(key, 0)).toThrow();
  });

  it('tells our addresses from others, in any case', () => {
    expect(classifyBounceAddress('bounces@B.example.com', 'b.example.com')).toEqual({ kind: 'plain' });
    expect(classifyBounceAddress('Bounces+AB-CD@b.example.com', 'b.example.com')).toEqual({
      kind: 'token',
      token: 'ab-cd',
    });
    expect(classifyBounceAddress('postmaster@b.example.com', 'b.example.com')).toEqual({ kind: 'foreign' });
    expect(classifyBounceAddress('bounces@other.example', 'b.example.com')).toEqual({ kind: 'foreign' });
    expect(classifyBounceAddress('bounces', 'b.example.com')).toEqual({ kind: 'foreign' });
  });
});
