import { randomBytes } from 'node:crypto';
import { alternateSpellings, signatureOf, withSignature } from '../../../test/support/token-spellings';
import { decodeTrackingToken, encodeTrackingToken } from './tracking-tokens';
import { ClickBursts, machineByClient } from './tracking-rules';

describe('tracking tokens', () => {
  const secret = randomBytes(32);

  it('round-trips open and click tokens', () => {
    const open = encodeTrackingToken(secret, { kind: 'open', campaignId: 7, subscriptionId: 42 });
    expect(open).toMatch(/^o\.7\.42\.[A-Za-z0-9_-]{22}$/);
    expect(decodeTrackingToken(secret, open, 'open')).toEqual({ kind: 'open', campaignId: 7, subscriptionId: 42 });
    const click = encodeTrackingToken(secret, { kind: 'click', campaignId: 7, subscriptionId: 42, linkIndex: 3 });
    expect(decodeTrackingToken(secret, click, 'click')).toEqual({
      kind: 'click',
      campaignId: 7,
      subscriptionId: 42,
      linkIndex: 3,
    });
  });

  it('refuses forged, altered, cross-kind and other-secret tokens', () => {
    const open = encodeTrackingToken(secret, { kind: 'open', campaignId: 7, subscriptionId: 42 });
    expect(decodeTrackingToken(secret, open.replace('.42.', '.43.'), 'open')).toBeNull();
    expect(decodeTrackingToken(secret, open, 'click')).toBeNull();
    expect(decodeTrackingToken(randomBytes(32), open, 'open')).toBeNull();
    expect(decodeTrackingToken(secret, 'o.7.42.AAAAAAAAAAAAAAAAAAAAAA', 'open')).toBeNull();
    expect(decodeTrackingToken(secret, 'o.07.42.x', 'open')).toBeNull();
  });

  it('accepts one spelling of a signature: every other spelling of the same bytes is refused', () => {
    for (const token of [
      encodeTrackingToken(secret, { kind: 'open', campaignId: 7, subscriptionId: 42 }),
      encodeTrackingToken(secret, { kind: 'click', campaignId: 7, subscriptionId: 42, linkIndex: 3 }),
    ]) {
      const kind = token.startsWith('o.') ? 'open' : 'click';
      const spellings = alternateSpellings(signatureOf(token));
      expect(spellings.length).toBeGreaterThanOrEqual(20);
      expect(decodeTrackingToken(secret, token, kind)).not.toBeNull();
      const accepted = spellings.filter((sig) => decodeTrackingToken(secret, withSignature(token, sig), kind) !== null);
      expect(accepted).toEqual([]);
    }
  });
});

describe('machine opens and clicks', () => {
  it('knows privacy proxies and scanners by agent and network', () => {
    expect(
      machineByClient(
        'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)',
        '1.2.3.4',
      ),
    ).toBe('google_image_proxy');
    expect(machineByClient('Mozilla/5.0', '17.58.1.2')).toBe('apple_mpp');
    expect(machineByClient('Mozilla/5.0 (Macintosh)', '::ffff:17.1.1.1')).toBe('apple_mpp');
    expect(machineByClient('Barracuda Sentinel', '1.2.3.4')).toBe('link_scanner');
    expect(machineByClient('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) Mobile', '81.2.3.4')).toBeNull();
  });

  it('flags a burst over several links', () => {
    const bursts = new ClickBursts();
    expect(bursts.isBurst('1:2', 0, 1000)).toBe(false);
    expect(bursts.isBurst('1:2', 1, 1100)).toBe(false);
    expect(bursts.isBurst('1:2', 2, 1200)).toBe(true);
    expect(bursts.isBurst('1:3', 0, 1200)).toBe(false);
    expect(bursts.isBurst('1:2', 0, 9000)).toBe(false);
  });
});
