/**
 * The client an address counts for: an IPv4 address itself (also IPv4-mapped), an IPv6 one by its
 * /64, since one host is routinely given a whole /64 and could otherwise take a new address per
 * message.
 */
export function clientOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!address.includes(':')) return address;
  const [head, tail] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * Messages per client of the bounce listener (docs/deliverability.md): at most `perMinute` per
 * client (`clientOf`: a remote address, an IPv6 /64) in each minute (a fixed window), so a
 * stranger cannot make the server parse unlimited mail. Kept in memory per instance: the whole
 * map is dropped when a minute ends, so it holds at most the clients of one minute. `perMinute`
 * 0: no limit.
 */
export class ListenerRate {
  private window = -1;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one message of this client; false once it is past its share of this minute. */
  take(address: string): boolean {
    if (this.perMinute === 0) return true;
    const client = clientOf(address);
    const window = Math.floor(this.now() / 60_000);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const n = (this.counts.get(client) ?? 0) + 1;
    this.counts.set(client, n);
    return n <= this.perMinute;
  }
}
