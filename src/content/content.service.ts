import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { canSeeDrafts, Principal } from '../common/auth/principal';
import { NotFoundProblem, PreconditionFailedProblem } from '../common/errors/problems';
import { recordEvent } from '../common/outbox/record-event';
import { Page } from '../common/pagination/page';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { versionEtag, ifMatchAllows } from '../common/http/etag';
import { LifecycleRequest, NEW_ITEM, nextLifecycle } from './content-lifecycle';
import { snapshotOf } from './content-snapshot';
import { actorOf, ContentWriter } from './content-writer';
import { ContentRepository, ContentSummary } from './content.repository';
import { CONTENT_EVENTS } from './content.events';
import { ContentQueryDto, CreateContentDto, UpdateContentDto } from './dto/content.dto';
import { ContentItemEntity } from './entities/content-item.entity';
import { visibility } from '../common/cache/site-read-cache';
import { approximateBytes, PublicContentCache } from './public-content.cache';

export interface UpdateOptions {
  /** API.md §6: the write happens only if this still matches the item's ETag. */
  ifMatch?: string;
}

export type { ContentSummary } from './content.repository';
export { CONTENT_STATUSES, type ContentStatus } from './content-status';
/** A content item as the service hands it to other modules (v1 maps it to a page). */
export type ContentItem = ContentItemEntity;

@Injectable()
export class ContentService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly writer: ContentWriter,
    private readonly repository: ContentRepository,
    private readonly cache: PublicContentCache,
  ) {}

  /**
   * Every list goes through the read cache (docs/content.md): anonymous readers' and key
   * holders' answers under keys of their own, since only key holders see drafts.
   */
  list(site: SiteContext, principal: Principal, query: ContentQueryDto): Promise<Page<ContentItemEntity>> {
    const withDrafts = canSeeDrafts(principal);
    return this.cache.through(
      site.id,
      `${visibility(withDrafts)}:list:${listKey(query)}`,
      true,
      () => this.repository.list(site, query, withDrafts),
      (page) => page.data.reduce((n, c) => n + approximateBytes(c), 256),
    );
  }

  /** `idOrSlug`: all digits is an id. Drafts of anonymous callers are a 404. */
  async get(site: SiteContext, principal: Principal, idOrSlug: string): Promise<ContentItemEntity> {
    const withDrafts = canSeeDrafts(principal);
    const found = await this.cache.through(
      site.id,
      `${visibility(withDrafts)}:get:${idOrSlug}`,
      true,
      async () => (await this.repository.findByIdOrSlug(site, idOrSlug, withDrafts)) ?? null,
      (item) => (item ? approximateBytes(item) : 64),
    );
    if (!found) throw new NotFoundProblem('Content');
    return found;
  }

  /** Another module's reference to an item (e.g. a collection item): 404 unless it is in the site. */
  /**
   * A page by offset, newest first, with the site's total (for page-numbered clients: v1;
   * API.md §3 keeps offsets there). Drafts included: only key holders page this way.
   */
  listByOffset(
    site: SiteContext,
    limit: number,
    offset: number,
  ): Promise<{ rows: ContentItemEntity[]; total: number }> {
    return this.cache.through(
      site.id,
      `${visibility(true)}:offset:${limit}:${offset}`,
      true,
      () => this.repository.offsetPage(site, limit, offset),
      (page) => page.rows.reduce((n, c) => n + approximateBytes(c), 256),
    );
  }

  /** Every item of the site, newest first, drafts included. */
  all(site: SiteContext): Promise<ContentItemEntity[]> {
    return this.repository.all(site);
  }

  /** Content of the site that another module refers to, in its transaction (404 for another site's id). */
  getForReference(em: EntityManager, site: SiteContext, id: number): Promise<ContentSummary> {
    return findInSiteOrFail(em, ContentItemEntity, site, id, 'Content');
  }

  /** The summaries of these items of the site, by id, in one query (ids not found are absent). */
  summariesByIds(site: SiteContext, ids: number[]): Promise<Map<number, ContentSummary>> {
    return this.repository.summariesByIds(site.id, ids);
  }

  /**
   * A condition for another module's list query that keeps rows whose content (its id in
   * `column`) is published: the list filters and pages in one statement, and content keeps
   * the rule of what "published" is.
   */
  publishedCondition(column: string): string {
    return this.repository.publishedCondition(column);
  }

  create(site: SiteContext, principal: Principal, dto: CreateContentDto): Promise<ContentItemEntity> {
    return this.write(site, async (em) => {
      const type = dto.type ?? 'post';
      const lifecycle = nextLifecycle(NEW_ITEM, dto, new Date());
      const item = em.create(ContentItemEntity, {
        siteId: site.id,
        type,
        title: dto.title,
        slug: await this.writer.slugFor(em, site, { slug: dto.slug, prefix: dto.slugPrefix, title: dto.title, type }),
        content: dto.content ?? '',
        format: dto.format ?? 'html',
        excerpt: dto.excerpt ?? '',
        status: lifecycle.status,
        publishAt: lifecycle.publishAt,
        publishedAt: lifecycle.publishedAt,
        tags: dto.tags ?? [],
        categories: dto.categories ?? [],
        authors: (dto.authors ?? []).map((a) => ({ id: a.id, name: a.name })),
        template: dto.template ?? '',
        thumbnail: dto.thumbnail ?? '',
        description: dto.description ?? '',
        customFields: dto.customFields ?? {},
        attachmentIds: await this.writer.attachments(em, site, dto.attachmentIds ?? []),
        version: 0,
      });
      return this.writer.commit(em, site, item, { action: 'created', actor: actorOf(principal), before: null });
    });
  }

  update(
    site: SiteContext,
    principal: Principal,
    id: number,
    dto: UpdateContentDto,
    options: UpdateOptions = {},
  ): Promise<ContentItemEntity> {
    return this.write(site, async (em) => {
      const item = await this.lockForWrite(em, site, id, options.ifMatch);
      const before = snapshotOf(item);
      const lifecycle = nextLifecycle(item, dto, new Date());
      if (dto.slug !== undefined || dto.slugPrefix !== undefined) {
        item.slug = await this.writer.slugFor(
          em,
          site,
          {
            slug: dto.slug,
            prefix: dto.slugPrefix,
            title: dto.title ?? item.title,
            type: dto.type ?? item.type,
          },
          item.id,
        );
      }
      if (dto.attachmentIds !== undefined) {
        item.attachmentIds = await this.writer.attachments(em, site, dto.attachmentIds);
      }
      Object.assign(item, definedFields(dto), {
        status: lifecycle.status,
        publishAt: lifecycle.publishAt,
        publishedAt: lifecycle.publishedAt,
      });
      if (dto.authors) item.authors = dto.authors.map((a) => ({ id: a.id, name: a.name }));
      return this.writer.commit(em, site, item, { action: lifecycle.action, actor: actorOf(principal), before });
    });
  }

  /** Publish now, or schedule at a future `publishAt` (the job publishes it on time). */
  publish(site: SiteContext, principal: Principal, id: number, publishAt?: Date): Promise<ContentItemEntity> {
    return this.transition(
      site,
      principal,
      id,
      publishAt ? { status: 'scheduled', publishAt } : { status: 'published' },
    );
  }

  /** Back to draft; also cancels a schedule. */
  unpublish(site: SiteContext, principal: Principal, id: number): Promise<ContentItemEntity> {
    return this.transition(site, principal, id, { status: 'draft' });
  }

  /** Deletes the item, its revisions and its places in collections (foreign keys cascade). */
  remove(site: SiteContext, id: number): Promise<ContentItemEntity> {
    return this.write(site, async (em) => {
      const item = await findInSiteOrFail(em, ContentItemEntity, site, id, 'Content', { lock: true });
      await em.delete(ContentItemEntity, { id: item.id, siteId: site.id });
      await recordEvent(em, site, CONTENT_EVENTS.deleted, { id: item.id, type: item.type, slug: item.slug });
      return item;
    });
  }

  /**
   * Takes media that were deleted out of the site's attachments, in the caller's transaction
   * (the `media.deleted` subscriber). Each item that listed one changes like an edit: version
   * and ETag, a revision by `system`, `content.updated`. Running it again finds nothing to do.
   * Answers how many items changed.
   */
  async removeAttachments(em: EntityManager, site: SiteContext, mediaIds: number[]): Promise<number> {
    const changed = await this.repository.removeAttachments(em, site.id, mediaIds);
    for (const { id, type, slug, status, version } of changed) {
      await recordEvent(em, site, CONTENT_EVENTS.updated, { id, type, slug, status, version });
    }
    // The caller commits later (the relay, after its batch): the site-data trigger's NOTIFY at
    // that commit drops the site's entries on every instance, this one included.
    if (changed.length) this.cache.invalidate(site.id);
    return changed.length;
  }

  /** One transaction per write; the site's cached reads are dropped everywhere once it is over. */
  private write<T>(site: SiteContext, work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.cache.writing(site.id, () => this.dataSource.transaction(work));
  }

  /** An explicit action: the transition is checked even when the status would stay. */
  private transition(
    site: SiteContext,
    principal: Principal,
    id: number,
    request: LifecycleRequest,
  ): Promise<ContentItemEntity> {
    return this.write(site, async (em) => {
      const item = await this.lockForWrite(em, site, id);
      const before = snapshotOf(item);
      const { status, publishAt, publishedAt, action } = nextLifecycle(item, request, new Date(), true);
      Object.assign(item, { status, publishAt, publishedAt });
      return this.writer.commit(em, site, item, { action, actor: actorOf(principal), before });
    });
  }

  private async lockForWrite(
    em: EntityManager,
    site: SiteContext,
    id: number,
    ifMatch?: string,
  ): Promise<ContentItemEntity> {
    const item = await findInSiteOrFail(em, ContentItemEntity, site, id, 'Content', { lock: true });
    if (!ifMatchAllows(ifMatch, versionEtag(item.id, item.version))) throw new PreconditionFailedProblem();
    return item;
  }
}

/** The list query as a cache key (every filter, in a fixed order). */
function listKey(q: ContentQueryDto): string {
  return JSON.stringify([
    q.limit,
    q.cursor,
    q.type,
    q.status,
    q.tag,
    q.category,
    q.author,
    q.q,
    q.from?.toISOString(),
    q.to?.toISOString(),
  ]);
}

/** The plain fields an update sets when present (slug, lifecycle, authors and attachments are handled apart). */
function definedFields(dto: UpdateContentDto): Partial<ContentItemEntity> {
  const keys = [
    'type',
    'title',
    'content',
    'format',
    'excerpt',
    'tags',
    'categories',
    'template',
    'thumbnail',
    'description',
    'customFields',
  ] as const;
  const out: Partial<Record<(typeof keys)[number], unknown>> = {};
  for (const k of keys) if (dto[k] !== undefined) out[k] = dto[k];
  return out as Partial<ContentItemEntity>;
}
