import { Injectable } from '@nestjs/common';
import { EntityManager, QueryDeepPartialEntity } from 'typeorm';
import { Principal } from '../common/auth/principal';
import { ConflictProblem } from '../common/errors/problems';
import { isUniqueViolation } from '../common/errors/postgres-errors';
import { recordEvent } from '../common/outbox/record-event';
import { QueueService } from '../common/queue/queue.service';
import { SiteContext } from '../common/tenancy/site-context';
import { MediaService } from '../media/media.service';
import { allocateSlug, baseSlug } from '../common/slugs/slugs';
import { ContentSnapshot, sameSnapshot, snapshotOf } from './content-snapshot';
import { PUBLISH_SCHEDULED_JOB, PublishScheduledJob } from './content-publish.job';
import { ContentEventPayload, eventsOf } from './content.events';
import { ContentItemEntity } from './entities/content-item.entity';
import { ActorType, ContentRevisionEntity, RevisionAction } from './entities/content-revision.entity';

export interface Actor {
  type: ActorType;
  id: number | null;
}

export const SCHEDULER: Actor = Object.freeze({ type: 'system', id: null });

export function actorOf(principal: Principal): Actor {
  switch (principal.kind) {
    case 'key':
      return { type: 'key', id: principal.keyId };
    case 'user':
      return { type: 'user', id: principal.userId };
    default:
      return SCHEDULER;
  }
}

export interface Change {
  action: RevisionAction;
  actor: Actor;
  /** The item before the change; null for a create. */
  before: ContentSnapshot | null;
  restoredFrom?: number;
}

const SLUG_KEY = 'content_items_site_id_slug_key';

/**
 * The steps every content write shares, inside the caller's transaction: slugs, then the
 * commit of a change (version, revision, outbox events, the scheduled-publish job).
 */
@Injectable()
export class ContentWriter {
  constructor(
    private readonly queue: QueueService,
    private readonly media: MediaService,
  ) {}

  /**
   * The slug of an item: an explicit slug (with its prefix) must be free, else 409
   * `duplicate_slug`; a slug made from the title gets the next free `-N` suffix.
   */
  async slugFor(
    em: EntityManager,
    site: SiteContext,
    input: { slug?: string; prefix?: string; title: string; type: string },
    exceptId?: number,
  ): Promise<string> {
    const base = baseSlug({ slug: input.slug, title: input.title, prefix: input.prefix, fallback: input.type });
    const explicit = input.slug !== undefined;
    const slug = await allocateSlug(em, ContentItemEntity, site.id, base, { explicit, exceptId });
    if (slug === null) throw duplicateSlug(base);
    return slug;
  }

  /**
   * Attachments are media of the site: another id is a 400 on `field`. With `dropMissing`
   * (a restore), media deleted since are left out instead.
   */
  async attachments(
    em: EntityManager,
    site: SiteContext,
    ids: number[],
    options: { dropMissing?: boolean } = {},
  ): Promise<number[]> {
    if (options.dropMissing) {
      const present = await this.media.attachableIds(em, site, ids);
      return ids.filter((id) => present.has(id));
    }
    await this.media.assertAttachable(em, site, ids, 'attachmentIds');
    return ids;
  }

  /**
   * Saves a change: bumps the version, appends a revision, records the events, and queues the
   * publish job when a schedule was set. An update that changes nothing writes nothing.
   */
  async commit(
    em: EntityManager,
    site: SiteContext,
    item: ContentItemEntity,
    change: Change,
  ): Promise<ContentItemEntity> {
    const after = snapshotOf(item);
    if (change.action === 'updated' && change.before && sameSnapshot(change.before, after)) return item;
    item.version = (item.version ?? 0) + 1;
    let saved: ContentItemEntity;
    try {
      saved = await em.save(item);
    } catch (err) {
      if (isUniqueViolation(err, SLUG_KEY)) throw duplicateSlug(item.slug);
      throw err;
    }
    await em.insert(ContentRevisionEntity, {
      siteId: site.id,
      contentId: saved.id,
      number: saved.version,
      action: change.action,
      snapshot: after,
      actorType: change.actor.type,
      actorId: change.actor.id,
      restoredFrom: change.restoredFrom ?? null,
    } as QueryDeepPartialEntity<ContentRevisionEntity>);
    const payload: ContentEventPayload = {
      id: saved.id,
      type: saved.type,
      slug: saved.slug,
      status: saved.status,
      version: saved.version,
    };
    for (const e of eventsOf(change.action, change.before?.status ?? null, saved.status)) {
      await recordEvent(em, site, e, { ...payload });
    }
    if (saved.status === 'scheduled' && saved.publishAt && after.publishAt !== change.before?.publishAt) {
      const job: PublishScheduledJob = {
        siteId: site.id,
        contentId: saved.id,
        publishAt: saved.publishAt.toISOString(),
      };
      await this.queue.send(PUBLISH_SCHEDULED_JOB, job, { startAfter: saved.publishAt, em });
    }
    return saved;
  }
}

function duplicateSlug(slug: string): ConflictProblem {
  return new ConflictProblem('duplicate_slug', `Another item of this site has the slug "${slug}"`);
}
