import { ReadCache } from './read-cache';

describe('ReadCache', () => {
  let clock = 0;
  const cache = (ttl = 1000, max = 1000) => new ReadCache<string>(ttl, max, () => clock);

  beforeEach(() => (clock = 0));

  it('returns what was stored until the TTL passes', () => {
    const c = cache();
    c.set(1, 'k', c.generation(1), 'v', 10);
    expect(c.get(1, 'k')).toBe('v');
    expect(c.get(2, 'k')).toBeUndefined();
    clock = 999;
    expect(c.get(1, 'k')).toBe('v');
    clock = 1000;
    expect(c.get(1, 'k')).toBeUndefined();
    expect(c.heldBytes).toBe(0);
  });

  it('drops every entry of a site when it is written to, and only that site', () => {
    const c = cache();
    c.set(1, 'a', c.generation(1), 'one', 10);
    c.set(2, 'a', c.generation(2), 'two', 10);
    c.invalidate(1);
    expect(c.get(1, 'a')).toBeUndefined();
    expect(c.get(2, 'a')).toBe('two');
  });

  it('clear() drops every site, and a read under way across it is not kept', () => {
    const c = cache();
    c.set(1, 'a', c.generation(1), 'one', 10);
    const before = c.generation(2);
    c.clear();
    expect(c.get(1, 'a')).toBeUndefined();
    expect(c.heldBytes).toBe(0);
    c.set(2, 'a', before, 'read before the clear', 10);
    expect(c.get(2, 'a')).toBeUndefined();
    c.set(2, 'a', c.generation(2), 'read after', 10);
    expect(c.get(2, 'a')).toBe('read after');
  });

  it('does not keep a read that a write overtook', () => {
    const c = cache();
    const gen = c.generation(1); // the read starts
    c.invalidate(1); // a write commits meanwhile
    c.set(1, 'k', gen, 'stale', 10); // the read ends
    expect(c.get(1, 'k')).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('evicts the oldest entries beyond the byte budget, and skips very large values', () => {
    const c = cache(1000, 100);
    for (const k of ['a', 'b', 'c', 'd', 'e', 'f']) c.set(1, k, 0, k, 20);
    expect(['a', 'b', 'c', 'd', 'e', 'f'].map((k) => c.get(1, k))).toEqual([undefined, 'b', 'c', 'd', 'e', 'f']);
    expect(c.heldBytes).toBe(100);
    c.set(1, 'big', 0, 'big', 26);
    expect(c.get(1, 'big')).toBeUndefined();
  });

  it('replaces an entry without counting it twice', () => {
    const c = cache();
    c.set(1, 'k', 0, 'v1', 10);
    c.set(1, 'k', 0, 'v2', 15);
    expect(c.get(1, 'k')).toBe('v2');
    expect(c.heldBytes).toBe(15);
  });

  it('is off with a TTL of 0', () => {
    const c = cache(0);
    c.set(1, 'k', 0, 'v', 1);
    expect(c.get(1, 'k')).toBeUndefined();
    expect(c.enabled).toBe(false);
  });
});
