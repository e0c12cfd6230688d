import ipaddr from 'ipaddr.js';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Why a delivery could not reach its endpoint before any HTTP was spoken. */
export class WebhookTargetError extends Error {
  constructor(
    readonly kind: 'dns' | 'blocked_address',
    message: string,
  ) {
    super(message);
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Why an address is no place to send a webhook, or null for a public unicast one. Everything
 * ipaddr.js does not call `unicast` is refused: private (10/8, 172.16/12, 192.168/16),
 * loopback, link-local (169.254/16 with the cloud metadata address, fe80::/10), unique-local
 * (fc00::/7), CGNAT (100.64/10), unspecified, multicast, broadcast and reserved ranges. IPv6
 * forms that carry an IPv4 address (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`) are judged
 * by that address; translation and tunnel prefixes (NAT64, 6to4, Teredo) are refused outright,
 * since where they lead cannot be told from here. Only 2000::/3 counts as global IPv6.
 */
export function blockedRange(text: string): string | null {
  if (!ipaddr.isValid(text)) return 'not an IP address';
  let addr = ipaddr.parse(text);
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    const parts = v6.parts;
    const compatible = parts.slice(0, 6).every((p) => p === 0) && (parts[6] !== 0 || parts[7] > 1);
    if (v6.isIPv4MappedAddress()) addr = v6.toIPv4Address();
    else if (compatible)
      addr = ipaddr.IPv4.parse(`${parts[6] >> 8}.${parts[6] & 255}.${parts[7] >> 8}.${parts[7] & 255}`);
  }
  const range = addr.range();
  if (range !== 'unicast') return range;
  if (addr.kind() === 'ipv6' && !(addr as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return 'not global unicast';
  return null;
}

/**
 * The addresses `hostname` (as `URL.hostname` gives it: IPv6 in brackets) resolves to, each
 * checked: if any is refused, the whole host is (a name that resolves to one public and one
 * private address must not reach the private one on the next lookup). The caller connects to
 * one of these addresses, never looking the name up again (DNS rebinding).
 */
export async function resolveTarget(hostname: string, allowPrivate: boolean): Promise<ResolvedAddress[]> {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  let addresses: ResolvedAddress[];
  if (isIP(bare)) {
    addresses = [{ address: bare, family: isIP(bare) as 4 | 6 }];
  } else {
    try {
      addresses = (await lookup(bare, { all: true, verbatim: true })).map((a) => ({
        address: a.address,
        family: a.family as 4 | 6,
      }));
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'ERROR';
      throw new WebhookTargetError('dns', `${bare} could not be resolved (${code})`);
    }
    if (addresses.length === 0) throw new WebhookTargetError('dns', `${bare} has no address`);
  }
  if (!allowPrivate) {
    for (const a of addresses) {
      const why = blockedRange(a.address);
      if (why) throw new WebhookTargetError('blocked_address', `${bare} resolves to ${a.address} (${why})`);
    }
  }
  return addresses;
}
