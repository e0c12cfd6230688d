import { Injectable } from '@nestjs/common';
import { ReadCache } from '../common/cache/read-cache';
import { CatalogConfig } from './catalog.config';

/** What one instance may hold for anonymous readers, at most. */
const MAX_BYTES = 32 * 1024 * 1024;

/**
 * Published products and categories as anonymous readers get them (CATALOG_CACHE_TTL_MS): the
 * same cache as content's (docs/content.md), with its own budget.
 */
@Injectable()
export class PublicCatalogCache extends ReadCache<unknown> {
  constructor(config: CatalogConfig) {
    super(config.CATALOG_CACHE_TTL_MS, MAX_BYTES);
  }

  /** Reads through the cache when `cached` (anonymous), storing what `read` answers under the site's generation. */
  async through<T>(
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

  /** Runs a write to the site, then drops the site's entries (after the commit, or a failure). */
  async writing<T>(siteId: number, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.invalidate(siteId);
    }
  }
}
