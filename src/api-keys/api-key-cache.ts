import type { KeyPrincipal, PublishableKeyPrincipal } from '../common/auth/principal';

interface Entry {
  principal: KeyPrincipal | PublishableKeyPrincipal | null;
  /** Which of the key's secrets the hash is (a rolled key has two for a while). */
  secret: 'current' | 'previous';
  lastUsedAt: number;
  until: number;
}

const MAX_ENTRIES = 10_000;

/**
 * Verified keys (and unknown hashes) by hash, so a key holder's request does not wait for a
 * key lookup. Entries are cleared by `reset()` whenever a trigger announces a change to keys or
 * accounts (ChangeNotifications), and the cache is bypassed while those notifications are down;
 * a read that raced a change is not stored (the generation moved on meanwhile).
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();
  private gen = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly live: () => boolean,
  ) {}

  get generation(): number {
    return this.gen;
  }

  get(hash: string, now = Date.now()): Entry | undefined {
    if (this.ttlMs === 0 || !this.live()) return undefined;
    const entry = this.entries.get(hash);
    if (entry && entry.until <= now) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry;
  }

  /**
   * `expiresAt`: when the secret stops working (the key's expiry, or a previous secret's end of
   * grace), which ends the entry early: no cached secret outlives it.
   */
  set(hash: string, gen: number, entry: Omit<Entry, 'until'>, expiresAt: number | null, now = Date.now()): void {
    if (this.ttlMs === 0 || gen !== this.gen || !this.live()) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(hash, { ...entry, until: Math.min(now + this.ttlMs, expiresAt ?? Infinity) });
  }

  reset(): void {
    this.gen++;
    this.entries.clear();
  }
}
