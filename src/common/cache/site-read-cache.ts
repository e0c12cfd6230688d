import { ChangeNotifications } from '../../database/change-notifications';
import { ReadCache } from './read-cache';

/**
 * The part of a cache key that keeps drafts from readers who may not see them: every key of a
 * read whose answer depends on it starts with this.
 */
export function visibility(withDrafts: boolean): string {
  return withDrafts ? 'drafts' : 'published';
}

/** The channel the site-data triggers notify, with the site's id (migration 1795700000000). */
const CHANNEL = 'sitebase_site_data';

/**
 * A ReadCache of a site's published data (content, the catalog) that every instance keeps
 * true at the next request (docs/performance.md, "Cached reads"):
 *
 * - Triggers on the tables behind its answers notify `sitebase_site_data` with the site's id at
 *   commit, whoever wrote (any instance, the job queue, an operator's SQL); each instance drops
 *   that site's entries when it hears it.
 * - A write through `writing()` drops the site here at once, then waits (at most a second) until
 *   every listening instance has heard it, so the caller's next request, wherever it lands, reads
 *   what was written.
 * - While the notification connection is down nothing is served from memory (a change could be
 *   missed), and when it comes back everything is dropped.
 *
 * What an entry may hold is the caller's rule: its key must name everything the answer depends
 * on besides the site's data (who may see drafts, the query). Entries live at most `ttlMs`.
 */
export class SiteReadCache<V> extends ReadCache<V> {
  constructor(
    ttlMs: number,
    maxBytes: number,
    private readonly notifications: ChangeNotifications,
  ) {
    super(ttlMs, maxBytes);
    notifications.subscribe(CHANNEL, (payload) => {
      const siteId = Number(payload);
      if (payload && Number.isSafeInteger(siteId)) this.invalidate(siteId);
      else this.clear();
    });
  }

  override get(siteId: number, key: string): V | undefined {
    return this.notifications.live ? super.get(siteId, key) : undefined;
  }

  /** Reads through the cache when `cached`, storing what `read` answers under the site's generation. */
  async through<T extends V>(
    siteId: number,
    key: string,
    cached: boolean,
    read: () => Promise<T>,
    bytes: (v: T) => number,
  ): Promise<T> {
    if (!cached || !this.enabled) return read();
    const hit = this.get(siteId, key) as T | undefined;
    if (hit !== undefined) return hit;
    const gen = this.generation(siteId);
    const value = await read();
    this.set(siteId, key, gen, value, bytes(value));
    return value;
  }

  /**
   * Runs a write to the site, then drops the site's entries (after the commit, so no read that
   * started earlier can store what the write replaced; after a failure too, which costs a miss)
   * and, when it committed, waits until every instance has heard of it.
   */
  async writing<T>(siteId: number, write: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await write();
    } finally {
      this.invalidate(siteId);
    }
    if (this.enabled) await this.notifications.changedEverywhere(CHANNEL, String(siteId));
    return result;
  }
}
