import { ListenerRate } from './listener-rate';

describe('ListenerRate', () => {
  it('lets each client send its share per minute, then refuses until the next minute', () => {
    let now = 120_000;
    const rate = new ListenerRate(2, () => now);
    expect([rate.take('a'), rate.take('a'), rate.take('a')]).toEqual([true, true, false]);
    expect(rate.take('b')).toBe(true);
    now += 59_999;
    expect(rate.take('a')).toBe(false);
    now += 1;
    expect([rate.take('a'), rate.take('a'), rate.take('a')]).toEqual([true, true, false]);
  });

  it('0 is no limit', () => {
    const rate = new ListenerRate(0);
    for (let i = 0; i < 1000; i++) expect(rate.take('a')).toBe(true);
  });
});
