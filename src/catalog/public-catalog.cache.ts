import { Injectable } from '@nestjs/common';
import { SiteReadCache } from '../common/cache/site-read-cache';
import { ChangeNotifications } from '../database/change-notifications';
import { CatalogConfig } from './catalog.config';

/** What one instance may hold, at most. */
const MAX_BYTES = 32 * 1024 * 1024;

/**
 * Products and categories as readers get them (CATALOG_CACHE_TTL_MS): the same cache as
 * content's (docs/content.md), with its own budget; a key names who may see drafts.
 */
@Injectable()
export class PublicCatalogCache extends SiteReadCache<unknown> {
  constructor(config: CatalogConfig, notifications: ChangeNotifications) {
    super(config.CATALOG_CACHE_TTL_MS, MAX_BYTES, notifications);
  }
}
