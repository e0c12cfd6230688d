/**
 * Group commit for work that produces outcomes faster than one transaction each can record them
 * (email delivery, webhook drains): what is added while a write runs is written together by the
 * next one, one write at a time, and room() bounds how many items may be in flight between
 * their start and their written record (what a crash could do again).
 */
export class GroupWriter<T> {
  private waiting: T[] = [];
  private running: Promise<void> | null = null;
  private failed: Error | null = null;
  /** Taken by room(), given back when the item is written. */
  private taken = 0;
  private readonly wanting: Array<() => void> = [];

  constructor(private readonly write: (items: T[]) => Promise<void>) {}

  /** Resolves once fewer than `limit` items are taken and not yet written; takes one. */
  async room(limit: number): Promise<void> {
    while (this.taken >= limit) await new Promise<void>((r) => this.wanting.push(r));
    this.taken += 1;
  }

  add(item: T): void {
    this.waiting.push(item);
    this.running ??= this.loop();
  }

  /** The first write that failed, if one did (later items are still written; drain() throws it). */
  get failure(): Error | null {
    return this.failed;
  }

  async drain(): Promise<void> {
    while (this.running) await this.running;
    if (this.failed) throw this.failed;
  }

  private async loop(): Promise<void> {
    // Answers that arrive in the same tick join the first write.
    await new Promise((r) => setImmediate(r));
    while (this.waiting.length > 0) {
      const items = this.waiting;
      this.waiting = [];
      try {
        await this.write(items);
      } catch (err) {
        this.failed ??= err instanceof Error ? err : new Error(String(err));
      }
      this.taken = Math.max(0, this.taken - items.length);
      for (const wake of this.wanting.splice(0)) wake();
    }
    this.running = null;
  }
}
