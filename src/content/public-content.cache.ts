import { Injectable } from '@nestjs/common';
import { SiteReadCache } from '../common/cache/site-read-cache';
import { ChangeNotifications } from '../database/change-notifications';
import { ContentConfig } from './content.config';
import { ContentItemEntity } from './entities/content-item.entity';

/** What one instance may hold, at most. */
const MAX_BYTES = 64 * 1024 * 1024;

/**
 * Content lists, pages and items as readers get them (CONTENT_CACHE_TTL_MS, docs/content.md):
 * anonymous readers' and key holders' under keys of their own (`published:` / `drafts:`).
 */
@Injectable()
export class PublicContentCache extends SiteReadCache<unknown> {
  constructor(config: ContentConfig, notifications: ChangeNotifications) {
    super(config.CONTENT_CACHE_TTL_MS, MAX_BYTES, notifications);
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
