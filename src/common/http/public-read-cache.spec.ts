import { bodyEtag, noneMatch } from './public-read-cache';

describe('public read validators', () => {
  it('a weak ETag of the length and CRC-32 of the body, different for different bodies', () => {
    const a = bodyEtag('{"data":[1]}');
    expect(a).toMatch(/^W\/"c-[0-9a-f]+"$/);
    expect(bodyEtag('{"data":[1]}')).toBe(a);
    expect(bodyEtag('{"data":[2]}')).not.toBe(a);
    expect(bodyEtag('é')).toMatch(/^W\/"2-/); // bytes, not characters
  });

  it('If-None-Match: weak comparison, lists, *, and nothing when absent', () => {
    const tag = 'W/"c-1234"';
    expect(noneMatch(undefined, tag)).toBe(false);
    expect(noneMatch('W/"c-1234"', tag)).toBe(true);
    expect(noneMatch('"c-1234"', tag)).toBe(true);
    expect(noneMatch('"x", W/"c-1234"', tag)).toBe(true);
    expect(noneMatch('*', tag)).toBe(true);
    expect(noneMatch('W/"c-1235"', tag)).toBe(false);
  });
});
