/**
 * Messages per client of the bounce listener (docs/deliverability.md): at most `perMinute` per
 * remote address in each minute (a fixed window), so a stranger cannot make the server parse
 * unlimited mail. Kept in memory per instance: the whole map is dropped when a minute ends, so it
 * holds at most the addresses of one minute. `perMinute` 0: no limit.
 */
export class ListenerRate {
  private window = -1;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one message of this client; false once it is past its share of this minute. */
  take(client: string): boolean {
    if (this.perMinute === 0) return true;
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
