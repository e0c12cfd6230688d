import type { VerifiedSession } from './session-cache';
import { SessionCache } from './session-cache';

const session = (sessionId: number) =>
  ({
    principal: { kind: 'user', accountId: 1, siteId: 1, userId: sessionId, sessionId },
  }) as unknown as VerifiedSession;

describe('SessionCache', () => {
  it('keeps an entry between half the TTL and the TTL, as drawn, and never past the session expiry', () => {
    const draws = [0, 1, 0.5];
    const cache = new SessionCache(
      60_000,
      () => true,
      () => draws.shift()!,
    );
    cache.set('a', 0, session(1), null, 0); // 30 s
    cache.set('b', 0, session(2), null, 0); // 60 s
    cache.set('c', 0, session(3), 10_000, 0); // 45 s, but the session ends at 10 s
    expect(cache.get('a', 29_999)).toBeDefined();
    expect(cache.get('a', 30_000)).toBeUndefined();
    expect(cache.get('b', 59_999)).toBeDefined();
    expect(cache.get('b', 60_000)).toBeUndefined();
    expect(cache.get('c', 9_999)).toBeDefined();
    expect(cache.get('c', 10_000)).toBeUndefined();
  });

  it('spreads the expiry of entries set together over the second half of the TTL', () => {
    const cache = new SessionCache(60_000, () => true);
    for (let i = 0; i < 1000; i++) cache.set(`t${i}`, 0, session(i), null, 0);
    const alive = (at: number) => Array.from({ length: 1000 }, (_, i) => cache.get(`t${i}`, at)).filter(Boolean).length;
    expect(alive(29_999)).toBe(1000);
    const half = alive(45_000);
    expect(half).toBeGreaterThan(350);
    expect(half).toBeLessThan(650);
    expect(alive(60_000)).toBe(0);
  });

  it('is bypassed while notifications are down, and a reset drops everything and refuses stale writes', () => {
    let live = true;
    const cache = new SessionCache(60_000, () => live);
    cache.set('a', cache.generation, session(1), null, 0);
    live = false;
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.session(1)).toBeUndefined();
    live = true;
    expect(cache.session(1)).toBeDefined();
    const before = cache.generation;
    cache.reset();
    expect(cache.get('a', 1)).toBeUndefined();
    cache.set('b', before, session(2), null, 0); // read before the reset: not kept
    expect(cache.get('b', 1)).toBeUndefined();
  });
});
