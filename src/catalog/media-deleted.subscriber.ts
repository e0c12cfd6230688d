import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { OutboxEvent, OutboxRelay } from '../common/outbox/outbox-relay.service';
import { recordEvent } from '../common/outbox/record-event';
import { MEDIA_EVENTS, MediaDeletedPayload } from '../media/media.events';
import { CatalogRepository } from './catalog.repository';
import { CATALOG_EVENTS } from './catalog.events';
import { PublicCatalogCache } from './public-catalog.cache';

/**
 * Deleting a media item (with its thumbnails) takes its ids out of the site's products and
 * categories (docs/catalog.md), as content does: in the relay's transaction, DB work only, and
 * safe to run twice (a second delivery finds nothing to change).
 */
@Injectable()
export class CatalogMediaDeletedSubscriber implements OnModuleInit {
  constructor(
    private readonly relay: OutboxRelay,
    private readonly repository: CatalogRepository,
    private readonly cache: PublicCatalogCache,
  ) {}

  onModuleInit(): void {
    this.relay.subscribe(MEDIA_EVENTS.deleted.name, async (em, event) => {
      await this.handle(em, event);
    });
  }

  /** Answers how many products changed. */
  async handle(em: EntityManager, event: OutboxEvent): Promise<number> {
    if (event.siteId === null) return 0;
    const { id, thumbnailIds } = event.payload as Partial<MediaDeletedPayload>;
    const mediaIds = [id, ...(Array.isArray(thumbnailIds) ? thumbnailIds : [])].filter(
      (x): x is number => Number.isSafeInteger(x) && (x as number) > 0,
    );
    if (mediaIds.length === 0) return 0;
    const changed = await this.repository.removeAttachments(em, event.siteId, mediaIds);
    const scope = { id: event.siteId, accountId: event.accountId };
    for (const p of changed) await recordEvent(em, scope, CATALOG_EVENTS.productUpdated, p);
    this.cache.invalidate(event.siteId);
    return changed.length;
  }
}
