import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SiteDirectory } from '../common/auth/principal';
import { OutboxEvent, OutboxRelay } from '../common/outbox/outbox-relay.service';
import { MEDIA_EVENTS, MediaDeletedPayload } from '../media/media.events';
import { ContentService } from './content.service';

/**
 * Deleting a media item (with its thumbnails) takes its ids out of the attachments of the
 * site's content (docs/content.md). Media knows nothing of content, and content already
 * depends on media, so content listens to `media.deleted` instead of media calling it.
 * Runs inside the relay's transaction, only DB work, and safe to run twice.
 */
@Injectable()
export class MediaDeletedSubscriber implements OnModuleInit {
  constructor(
    private readonly relay: OutboxRelay,
    private readonly sites: SiteDirectory,
    private readonly content: ContentService,
  ) {}

  onModuleInit(): void {
    this.relay.subscribe(MEDIA_EVENTS.deleted.name, async (em, event) => {
      await this.handle(em, event);
    });
  }

  /** Answers how many content items changed (0 for a repeated delivery). */
  async handle(em: EntityManager, event: OutboxEvent): Promise<number> {
    if (event.siteId === null) return 0;
    const { id, thumbnailIds } = event.payload as Partial<MediaDeletedPayload>;
    const mediaIds = [id, ...(Array.isArray(thumbnailIds) ? thumbnailIds : [])].filter(
      (x): x is number => Number.isSafeInteger(x) && (x as number) > 0,
    );
    if (mediaIds.length === 0) return 0;
    // A site deleted since took its content with it.
    const site = await this.sites.findById(event.siteId);
    if (!site) return 0;
    return this.content.removeAttachments(em, site, mediaIds);
  }
}
