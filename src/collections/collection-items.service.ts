import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ConflictProblem, NotFoundProblem } from '../common/errors/problems';
import { recordEvent } from '../common/outbox/record-event';
import { CollectionsRepository } from './collections.repository';
import { COLLECTION_EVENTS } from './collections.events';
import { CursorQueryDto, Page } from '../common/pagination/page';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { ContentService, ContentSummary } from '../content/content.service';
import { AddCollectionItemDto } from './dto/collection-item.dto';
import { CollectionItemEntity } from './entities/collection-item.entity';
import { CollectionEntity } from './entities/collection.entity';

export type CollectionItemRow = CollectionItemEntity & { content: ContentSummary };

@Injectable()
export class CollectionItemsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: CollectionsRepository,
    private readonly content: ContentService,
  ) {}

  /** In position order; without drafts unless the caller may see them. */
  async list(
    site: SiteContext,
    collectionId: number,
    query: CursorQueryDto,
    withDrafts: boolean,
  ): Promise<Page<CollectionItemRow>> {
    await findInSiteOrFail(this.dataSource.manager, CollectionEntity, site, collectionId, 'Collection');
    const published = withDrafts ? undefined : this.content.publishedCondition('i.content_id');
    const page = await this.repository.listItems(site.id, collectionId, query, published);
    // One more query for the page's content; an item whose content went in between is left out.
    const summaries = await this.content.summariesByIds(
      site,
      page.data.map((i) => i.contentId),
    );
    const data = page.data.flatMap((i) => {
      const content = summaries.get(i.contentId);
      return content ? [Object.assign(i, { content })] : [];
    });
    return { data, pagination: page.pagination };
  }

  /**
   * Adds content of the site at a position (default: last). Items at or after it move down by
   * one; a position past the end is the end. The same content twice is a 409.
   */
  add(site: SiteContext, collectionId: number, dto: AddCollectionItemDto): Promise<CollectionItemRow> {
    return this.dataSource.transaction(async (em) => {
      // The lock serialises item changes of one collection, so positions do not collide.
      const collection = await findInSiteOrFail(em, CollectionEntity, site, collectionId, 'Collection', { lock: true });
      const content = await this.content.getForReference(em, site, dto.contentId);
      if (await em.existsBy(CollectionItemEntity, { collectionId: collection.id, contentId: content.id })) {
        throw new ConflictProblem('duplicate_item', 'This content is already in the collection');
      }
      const next = await this.repository.nextPosition(em, collection.id);
      const position = dto.position === undefined ? next : Math.min(dto.position, next);
      if (position < next) await this.repository.shiftItemsFrom(em, collection.id, position);
      const item = await em.save(
        em.create(CollectionItemEntity, {
          siteId: site.id,
          collectionId: collection.id,
          contentId: content.id,
          position,
        }),
      );
      await recordEvent(em, site, COLLECTION_EVENTS.itemAdded, {
        collectionId: collection.id,
        contentId: content.id,
        position,
      });
      const row: CollectionItemRow = Object.assign(item, { content });
      return row;
    });
  }

  remove(site: SiteContext, collectionId: number, contentId: number): Promise<void> {
    return this.dataSource.transaction(async (em) => {
      const collection = await findInSiteOrFail(em, CollectionEntity, site, collectionId, 'Collection', { lock: true });
      const result = await em.delete(CollectionItemEntity, { collectionId: collection.id, contentId, siteId: site.id });
      if (!result.affected) throw new NotFoundProblem('Collection item');
      await recordEvent(em, site, COLLECTION_EVENTS.itemRemoved, { collectionId: collection.id, contentId });
    });
  }
}
