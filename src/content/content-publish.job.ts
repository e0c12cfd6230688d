import { forwardRef, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SiteDirectory } from '../common/auth/principal';
import { QueueService } from '../common/queue/queue.service';
import { snapshotOf } from './content-snapshot';
import { ContentWriter, SCHEDULER } from './content-writer';
import { ContentItemEntity } from './entities/content-item.entity';
import { PublicContentCache } from './public-content.cache';

export const PUBLISH_SCHEDULED_JOB = 'content.publish-scheduled';

/** The job's payload: ids and the schedule it carries out, never the item. */
export interface PublishScheduledJob {
  siteId: number;
  contentId: number;
  /** The schedule this job carries out; a changed or cancelled schedule makes it a no-op. */
  publishAt: string;
}

/**
 * Publishes a scheduled item when its publishAt comes. Safe to run twice: it acts only while
 * the item is still scheduled for exactly this time (a reschedule queues its own job).
 */
@Injectable()
export class ContentPublishJob implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: QueueService,
    // forwardRef: the writer imports this file for the queue name and payload.
    @Inject(forwardRef(() => ContentWriter)) private readonly writer: ContentWriter,
    private readonly sites: SiteDirectory,
    private readonly cache: PublicContentCache,
  ) {}

  onModuleInit(): void {
    this.queue.register<PublishScheduledJob>(PUBLISH_SCHEDULED_JOB, (data) => this.run(data));
  }

  async run({ siteId, contentId, publishAt }: PublishScheduledJob): Promise<void> {
    const site = await this.sites.findById(siteId);
    if (!site) return;
    await this.cache.writing(siteId, () =>
      this.dataSource.transaction(async (em) => {
        const item = await em.findOne(ContentItemEntity, {
          where: { id: contentId, siteId },
          lock: { mode: 'pessimistic_write' },
        });
        if (!item || item.status !== 'scheduled' || item.publishAt?.toISOString() !== publishAt) return;
        const before = snapshotOf(item);
        // The publication date is the scheduled time, not the moment the worker got to it.
        Object.assign(item, { status: 'published', publishedAt: item.publishAt, publishAt: null });
        await this.writer.commit(em, site, item, { action: 'published', actor: SCHEDULER, before });
      }),
    );
  }
}
