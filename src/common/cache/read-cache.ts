/**
 * A small in-process cache of what anonymous readers get (published lists and items), so the
 * public read path of a busy site does not query PostgreSQL for every request.
 *
 * - Entries live at most `ttlMs`. Writes in this process bump the site's generation, which makes
 *   every older entry of the site a miss at once; another instance's writes show within ttlMs.
 * - A read takes the generation *before* it queries and stores under it, so a write that commits
 *   while the read runs cannot leave a stale entry behind.
 * - The total size (an estimate of the bytes held) stays under `maxBytes`; the oldest go first.
 */
export class ReadCache<V> {
  private readonly entries = new Map<string, { value: V; gen: number; expires: number; bytes: number }>();
  private readonly generations = new Map<number, number>();
  /** Added to every site's generation: `clear()` raises it, making every read under way a miss. */
  private epoch = 0;
  private bytes = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  generation(siteId: number): number {
    return this.epoch + (this.generations.get(siteId) ?? 0);
  }

  get(siteId: number, key: string): V | undefined {
    if (!this.enabled) return undefined;
    const id = `${siteId}:${key}`;
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.gen !== this.generation(siteId) || entry.expires <= this.now()) {
      this.delete(id);
      return undefined;
    }
    return entry.value;
  }

  /** Stores a value read under generation `gen` (taken before the read). */
  set(siteId: number, key: string, gen: number, value: V, bytes: number): void {
    if (!this.enabled || gen !== this.generation(siteId) || bytes > this.maxBytes / 4) return;
    const id = `${siteId}:${key}`;
    this.delete(id);
    this.entries.set(id, { value, gen, expires: this.now() + this.ttlMs, bytes });
    this.bytes += bytes;
    // Map order is insertion order: the first entries are the oldest.
    for (const [oldest] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  /** After a write to the site commits (or fails: a needless miss is harmless). */
  invalidate(siteId: number): void {
    this.generations.set(siteId, (this.generations.get(siteId) ?? 0) + 1);
  }

  /** Anything may have changed: every entry goes, and no read under way stores what it read. */
  clear(): void {
    this.epoch++;
    this.entries.clear();
    this.bytes = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  get heldBytes(): number {
    return this.bytes;
  }

  private delete(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.bytes -= entry.bytes;
    this.entries.delete(id);
  }
}
