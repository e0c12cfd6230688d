import { Injectable } from '@nestjs/common';
import { Page } from '../common/pagination/page';
import { ContentConfig } from './content.config';
import { ReadCache } from '../common/cache/read-cache';
import { ContentItemEntity } from './entities/content-item.entity';

/** What one instance may hold for anonymous readers, at most. */
const MAX_BYTES = 64 * 1024 * 1024;

/** Published lists and items as anonymous readers get them (CONTENT_CACHE_TTL_MS, docs/content.md). */
@Injectable()
export class PublicContentCache extends ReadCache<Page<ContentItemEntity> | ContentItemEntity> {
  constructor(config: ContentConfig) {
    super(config.CONTENT_CACHE_TTL_MS, MAX_BYTES);
  }

  /**
   * Runs a write to the site, then drops the site's entries: after the commit, so no read that
   * started earlier can store what the write replaced (and after a failure, which costs a miss).
   */
  async writing<T>(siteId: number, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.invalidate(siteId);
    }
  }
}

/** A rough size of an item in memory, for the byte budget. */
export function approximateBytes(c: ContentItemEntity): number {
  return (
    512 +
    (c.content?.length ?? 0) +
    c.title.length +
    c.slug.length +
    c.excerpt.length +
    c.description.length +
    c.template.length +
    c.thumbnail.length +
    JSON.stringify(c.customFields).length +
    JSON.stringify(c.authors).length +
    32 * (c.tags.length + c.categories.length + c.attachmentIds.length)
  );
}
