import { baseSlug, nextFreeSlug, SLUG_PATTERN, slugPart } from './slugs';

describe('content slugs', () => {
  it('turns a title into lower-case latin words', () => {
    expect(slugPart('Héllo Wörld! Ça va?')).toBe('hello-world-ca-va');
    expect(slugPart('  --Already--dashed--  ')).toBe('already-dashed');
    expect(slugPart('日本語')).toBe('');
  });

  it('cuts long titles at a word boundary', () => {
    const slug = slugPart('word '.repeat(40));
    expect(slug.length).toBeLessThanOrEqual(80);
    expect(slug).toMatch(SLUG_PATTERN);
    expect(slug.endsWith('word')).toBe(true);
  });

  it('uses the slug when given, the title otherwise, behind the prefix', () => {
    expect(baseSlug({ title: 'Hello World', fallback: 'post' })).toBe('hello-world');
    expect(baseSlug({ slug: 'custom', title: 'Hello World', fallback: 'post' })).toBe('custom');
    expect(baseSlug({ title: 'Hello World', prefix: 'news', fallback: 'post' })).toBe('news-hello-world');
  });

  it('falls back to the type when the title has no latin words, and never yields only digits', () => {
    expect(baseSlug({ title: '日本語', fallback: 'page' })).toBe('page');
    expect(baseSlug({ title: '2024', fallback: 'post' })).toBe('post-2024');
    expect(baseSlug({ title: '!!!', fallback: '???' })).toBe('item');
  });

  it('picks the base when free, else one past the highest numeric suffix', () => {
    expect(nextFreeSlug('hello', [])).toBe('hello');
    expect(nextFreeSlug('hello', ['hello-2'])).toBe('hello');
    expect(nextFreeSlug('hello', ['hello'])).toBe('hello-2');
    expect(nextFreeSlug('hello', ['hello', 'hello-2', 'hello-7', 'hello-world', 'hello-07'])).toBe('hello-8');
  });

  it('accepts slugs and rejects ids and malformed ones', () => {
    expect(SLUG_PATTERN.test('a-1')).toBe(true);
    expect(SLUG_PATTERN.test('123')).toBe(false);
    expect(SLUG_PATTERN.test('A-b')).toBe(false);
    expect(SLUG_PATTERN.test('a--b')).toBe(false);
    expect(SLUG_PATTERN.test('-a')).toBe(false);
  });
});
