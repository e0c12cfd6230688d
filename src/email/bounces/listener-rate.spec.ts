import { clientOf, ListenerRate } from './listener-rate';

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

  it('counts an IPv6 client by its /64, an IPv4 (or mapped) one by its address', () => {
    expect(clientOf('192.0.2.7')).toBe('192.0.2.7');
    expect(clientOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientOf('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(clientOf('2001:0DB8:0000:0001:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:0:1::/64');
    expect(clientOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientOf('::1')).toBe('0:0:0:0::/64');
    const rate = new ListenerRate(1);
    expect([rate.take('2001:db8:0:1::5'), rate.take('2001:db8:0:1::6'), rate.take('2001:db8:0:2::5')]).toEqual([
      true,
      false,
      true,
    ]);
  });
});
