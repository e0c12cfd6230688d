import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { NotFoundProblem, ValidationProblem } from '../common/errors/problems';
import { recordEvent } from '../common/outbox/record-event';
import { Page } from '../common/pagination/page';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { MediaQueryDto, UpdateMediaDto } from './dto/media.dto';
import { MediaItemEntity } from './entities/media-item.entity';
import {
  MediaCategoryEntity,
  MediaItemCategoryEntity,
  MediaItemTagEntity,
  MediaTagEntity,
} from './entities/media-term.entity';
import { MediaFilesJob } from './media-files.job';
import { MediaRepository } from './media.repository';
import { MediaLinks } from './media-links';
import { MediaDetail, MediaTermRef, MediaView, toMediaView } from './media-view';
import { MEDIA_EVENTS } from './media.events';

const TEXT_FIELDS = ['title', 'caption', 'description', 'altText'] as const;

/** What other modules read of a media item (content attachments, v1). */
export type { MediaView } from './media-view';

@Injectable()
export class MediaService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly links: MediaLinks,
    private readonly files: MediaFilesJob,
    private readonly repository: MediaRepository,
  ) {}

  /**
   * For modules that attach media (content): a 400 naming `field` when any id is not a media
   * item of the site (other sites' ids look missing, API.md §1). The items stay locked against
   * deletion until `em`'s transaction ends (see attachableIds).
   */
  async assertAttachable(em: EntityManager, site: SiteContext, ids: number[], field = 'mediaIds'): Promise<void> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return;
    const present = await this.attachableIds(em, site, unique);
    const missing = unique.filter((id) => !present.has(id));
    if (missing.length)
      throw new ValidationProblem(
        missing.map((id) => ({ path: field, message: `media ${id} does not exist in this site` })),
      );
  }

  /**
   * Which of these ids are media items of the site, locked against deletion until `em`'s
   * transaction ends: a delete waits for the write that attaches them, so its `media.deleted`
   * finds the attachment, and a delete already under way makes them missing here.
   */
  async attachableIds(em: EntityManager, site: SiteContext, ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    return this.repository.idsInSite(em, site.id, [...new Set(ids)]);
  }

  /** Views in the order of `ids`; ids that are not media of the site are skipped. */
  async viewsByIds(site: SiteContext, ids: number[]): Promise<MediaView[]> {
    if (ids.length === 0) return [];
    const rows = await this.repository.itemsByIds(site.id, [...new Set(ids)]);
    const byId = new Map(rows.map((r) => [r.id, toMediaView(r, site.name, this.links.linkOf)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async detailsByIds(site: SiteContext, ids: number[]): Promise<MediaDetail[]> {
    if (ids.length === 0) return [];
    const rows = await this.repository.itemsByIds(site.id, ids);
    const byId = new Map((await this.details(site, rows)).map((d) => [d.id, d]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async list(site: SiteContext, query: MediaQueryDto): Promise<Page<MediaDetail>> {
    const page = await this.repository.list(site.id, query);
    return { data: await this.details(site, page.data), pagination: page.pagination };
  }

  /** v1 lists page by offset, newest first. */
  async listByOffset(site: SiteContext, limit: number, offset: number): Promise<{ data: MediaView[]; total: number }> {
    const [rows, total] = await this.repository.offsetPage(site.id, limit, offset);
    return { data: rows.map((r) => toMediaView(r, site.name, this.links.linkOf)), total };
  }

  async get(site: SiteContext, id: number): Promise<MediaDetail> {
    const row = await this.repository.item(site.id, id);
    if (!row) throw new NotFoundProblem('Media item');
    return (await this.details(site, [row]))[0];
  }

  async update(site: SiteContext, id: number, dto: UpdateMediaDto): Promise<MediaDetail> {
    await this.dataSource.transaction(async (em) => {
      const item = await findInSiteOrFail(em, MediaItemEntity, site, id, 'Media item', { lock: true });
      const changed: string[] = [];
      const values: Partial<Record<(typeof TEXT_FIELDS)[number], string>> = {};
      for (const field of TEXT_FIELDS) {
        const value = dto[field];
        if (value !== undefined && value !== item[field]) {
          values[field] = value;
          changed.push(field);
        }
      }
      if (dto.categoryIds) {
        await this.assertTerms(em, MediaCategoryEntity, site, dto.categoryIds, 'categoryIds', 'category');
        await em.delete(MediaItemCategoryEntity, { mediaId: id });
        if (dto.categoryIds.length)
          await em.insert(
            MediaItemCategoryEntity,
            dto.categoryIds.map((categoryId) => ({ mediaId: id, categoryId, siteId: site.id })),
          );
        changed.push('categoryIds');
      }
      if (dto.tagIds) {
        await this.assertTerms(em, MediaTagEntity, site, dto.tagIds, 'tagIds', 'tag');
        await em.delete(MediaItemTagEntity, { mediaId: id });
        if (dto.tagIds.length)
          await em.insert(
            MediaItemTagEntity,
            dto.tagIds.map((tagId) => ({ mediaId: id, tagId, siteId: site.id })),
          );
        changed.push('tagIds');
      }
      if (changed.length === 0) return;
      // Term changes alone touch no column of the row, so updated_at is set here.
      await em.update(MediaItemEntity, { id }, { ...values, updatedAt: () => 'now()' });
      // Thumbnails are variants of the same picture: they carry the original's text.
      if (item.originalId === null && Object.keys(values).length) {
        await em.update(MediaItemEntity, { siteId: site.id, originalId: id }, { ...values, updatedAt: () => 'now()' });
      }
      await recordEvent(em, site, MEDIA_EVENTS.updated, { id, fields: changed });
    });
    return this.get(site, id);
  }

  /** Deletes an item with its thumbnails and their files. */
  async remove(site: SiteContext, id: number): Promise<void> {
    const keys = await this.dataSource.transaction(async (em) => {
      await findInSiteOrFail(em, MediaItemEntity, site, id, 'Media item', { lock: true });
      return this.deleteRows(em, site, { ids: [id] });
    });
    await this.files.removeSoon(keys);
  }

  /** v1 project media: deletes the items stored under these keys in the site; others are ignored. */
  async removeByKeys(site: SiteContext, keys: string[]): Promise<void> {
    const removed = await this.dataSource.transaction((em) => this.deleteRows(em, site, { keys }));
    await this.files.removeSoon(removed);
  }

  /** Deletes rows (thumbnails follow their original), records events, queues the files. */
  private async deleteRows(
    em: EntityManager,
    site: SiteContext,
    by: { ids?: number[]; keys?: string[] },
  ): Promise<string[]> {
    const where = by.ids ? { siteId: site.id, id: In(by.ids) } : { siteId: site.id, storageKey: In(by.keys ?? []) };
    // In id order, as attachment checks lock them (MediaRepository.idsInSite).
    const targets = await em.find(MediaItemEntity, {
      where,
      order: { id: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
    if (targets.length === 0) return [];
    const targetIds = targets.map((t) => t.id);
    const thumbnails = await em.find(MediaItemEntity, { where: { siteId: site.id, originalId: In(targetIds) } });
    const keys = [...new Set([...targets, ...thumbnails].map((r) => r.storageKey))];
    await em.delete(MediaItemEntity, { siteId: site.id, id: In(targetIds) }); // thumbnails cascade
    for (const t of targets) {
      const thumbnailIds = thumbnails.filter((th) => th.originalId === t.id).map((th) => th.id);
      await recordEvent(em, site, MEDIA_EVENTS.deleted, { id: t.id, thumbnailIds });
    }
    await this.files.enqueue(em, keys);
    return keys;
  }

  private async assertTerms(
    em: EntityManager,
    entity: typeof MediaCategoryEntity | typeof MediaTagEntity,
    site: SiteContext,
    ids: number[],
    path: string,
    what: string,
  ): Promise<void> {
    if (ids.length === 0) return;
    const found = await em.find(entity, { where: { siteId: site.id, id: In(ids) }, select: { id: true } });
    const present = new Set(found.map((t) => t.id));
    const missing = ids.filter((id) => !present.has(id));
    if (missing.length)
      throw new ValidationProblem(
        missing.map((id) => ({ path, message: `${what} ${id} does not exist in this site` })),
      );
  }

  /** Adds terms and thumbnails to rows, in three queries for the whole page. */
  private async details(site: SiteContext, rows: MediaItemEntity[]): Promise<MediaDetail[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const originalIds = rows.filter((r) => r.originalId === null).map((r) => r.id);
    const [thumbs, categories, tags] = await Promise.all([
      originalIds.length ? this.repository.thumbnailsOf(site.id, originalIds) : Promise.resolve([]),
      this.termsOf('media_item_categories', 'category_id', 'media_categories', ids),
      this.termsOf('media_item_tags', 'tag_id', 'media_tags', ids),
    ]);
    return rows.map((row) => ({
      ...toMediaView(row, site.name, this.links.linkOf),
      storageKey: row.storageKey,
      updatedAt: row.updatedAt,
      categories: categories.get(row.id) ?? [],
      tags: tags.get(row.id) ?? [],
      thumbnails: thumbs
        .filter((t) => t.originalId === row.id)
        .map((t) => toMediaView(t, site.name, this.links.linkOf)),
    }));
  }

  private async termsOf(
    link: 'media_item_categories' | 'media_item_tags',
    column: 'category_id' | 'tag_id',
    terms: 'media_categories' | 'media_tags',
    mediaIds: number[],
  ): Promise<Map<number, MediaTermRef[]>> {
    const out = new Map<number, MediaTermRef[]>();
    for (const r of await this.repository.termsOf(link, column, terms, mediaIds)) {
      const list = out.get(r.media_id) ?? [];
      list.push({ id: r.id, name: r.name, slug: r.slug });
      out.set(r.media_id, list);
    }
    return out;
  }
}
