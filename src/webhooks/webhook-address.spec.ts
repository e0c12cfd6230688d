import { blockedRange, resolveTarget, WebhookTargetError } from './webhook-address';

describe('blockedRange: only public unicast addresses are webhook targets', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.100.100.200', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['192.0.2.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['2002:7f00:1::', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['fec0::1', 'deprecatedSiteLocal'],
  ])('%s is refused (%s)', (address, range) => {
    expect(blockedRange(address)).toBe(range);
  });

  it.each(['93.184.215.14', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    '%s is allowed',
    (address) => {
      expect(blockedRange(address)).toBeNull();
    },
  );

  it('refuses what is not an address', () => {
    expect(blockedRange('localhost')).toBe('not an IP address');
  });
});

describe('resolveTarget', () => {
  it('takes IP literals as they are, IPv6 in brackets too', async () => {
    await expect(resolveTarget('93.184.215.14', false)).resolves.toEqual([{ address: '93.184.215.14', family: 4 }]);
    await expect(resolveTarget('[2606:4700:4700::1111]', false)).resolves.toEqual([
      { address: '2606:4700:4700::1111', family: 6 },
    ]);
  });

  it('resolves names and refuses one that reaches a private address', async () => {
    await expect(resolveTarget('localhost', false)).rejects.toThrow(WebhookTargetError);
    await expect(resolveTarget('localhost', false)).rejects.toMatchObject({ kind: 'blocked_address' });
    const allowed = await resolveTarget('localhost', true);
    expect(allowed.map((a) => a.address)).toContain('127.0.0.1');
  });

  it('a name that does not resolve is a dns error', async () => {
    await expect(resolveTarget('no-such-host.invalid', true)).rejects.toMatchObject({ kind: 'dns' });
  });
});
