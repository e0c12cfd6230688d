import { forwardRef, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource, LessThan } from 'typeorm';
import { SiteDirectory } from '../common/auth/principal';
import { QueueService } from '../common/queue/queue.service';
import { snapshotOf } from './content-snapshot';
import { ContentWriter, SCHEDULER } from './content-writer';
import { ContentItemEntity } from './entities/content-item.entity';
import { PublicContentCache } from './public-content.cache';

export const PUBLISH_SCHEDULED_JOB = 'content.publish-scheduled';
export const PUBLISH_OVERDUE_JOB = 'content.publish-overdue';

/** A scheduled item this long past its time has lost its job (a crash): the sweep queues another. */
const OVERDUE_MS = 60_000;
/** Items one sweep queues at most (the next sweep, a minute on, takes the rest). */
const SWEEP_LIMIT = 1000;

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
    this.queue.register(PUBLISH_OVERDUE_JOB, async () => void (await this.recover()), {
      cron: '* * * * *',
      retryLimit: 0,
    });
  }

  /**
   * Every minute: each item still scheduled a minute after its time gets its job again. A job
   * held by an instance that was killed waits out its expiry (15 minutes) before a retry; this
   * publishes within two. Running a job twice is harmless (see run). Answers how many it queued.
   */
  async recover(): Promise<number> {
    const overdue = await this.dataSource.manager.find(ContentItemEntity, {
      select: { id: true, siteId: true, publishAt: true },
      where: { status: 'scheduled', publishAt: LessThan(new Date(Date.now() - OVERDUE_MS)) },
      order: { publishAt: 'ASC' },
      take: SWEEP_LIMIT,
    });
    for (const item of overdue)
      await this.queue.send<PublishScheduledJob>(PUBLISH_SCHEDULED_JOB, {
        siteId: item.siteId,
        contentId: item.id,
        publishAt: item.publishAt!.toISOString(),
      });
    return overdue.length;
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
