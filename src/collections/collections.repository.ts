import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { applyKeyset, CursorQueryDto, keysetPage, Page } from '../common/pagination/page';
import { sql } from '../database/sql';
import { CollectionItemEntity } from './entities/collection-item.entity';
import { CollectionEntity } from './entities/collection.entity';

/** The collection queries that outgrow a repository method (docs/modules.md). */
@Injectable()
export class CollectionsRepository {
  constructor(
    @InjectRepository(CollectionEntity) private readonly collections: Repository<CollectionEntity>,
    @InjectRepository(CollectionItemEntity) private readonly items: Repository<CollectionItemEntity>,
  ) {}

  /** The site's collections, newest first. */
  async list(siteId: number, query: CursorQueryDto): Promise<Page<CollectionEntity>> {
    const qb = this.collections.createQueryBuilder('c').where('c.site_id = :siteId', { siteId });
    const rows = await applyKeyset(
      qb,
      [
        { expr: 'c.created_at', type: 'timestamp' },
        { expr: 'c.id', type: 'number' },
      ],
      query,
    ).getMany();
    return keysetPage(rows, query.limit, (c) => [c.createdAt.toISOString(), c.id]);
  }

  /** The pinned collection; else the one whose window contains now and that started last. */
  current(siteId: number): Promise<CollectionEntity | null> {
    return this.collections
      .createQueryBuilder('c')
      .where('c.site_id = :siteId', { siteId })
      .andWhere('(c.pinned OR (c.starts_at <= now() AND (c.ends_at IS NULL OR c.ends_at > now())))')
      .orderBy('c.pinned', 'DESC')
      .addOrderBy('c.starts_at', 'DESC')
      .addOrderBy('c.id', 'DESC')
      .getOne();
  }

  /**
   * A collection's items in position order; `published` (content's condition on an item's
   * content id, from ContentService.publishedCondition) leaves drafts out.
   */
  async listItems(
    siteId: number,
    collectionId: number,
    query: CursorQueryDto,
    published?: string,
  ): Promise<Page<CollectionItemEntity>> {
    const qb = this.items
      .createQueryBuilder('i')
      .where('i.collection_id = :collectionId AND i.site_id = :siteId', { collectionId, siteId });
    if (published) qb.andWhere(published);
    const rows = await applyKeyset(
      qb,
      [
        { expr: 'i.position', type: 'number' },
        { expr: 'i.id', type: 'number' },
      ],
      query,
      'ASC',
    ).getMany();
    return keysetPage(rows, query.limit, (i) => [i.position, i.id]);
  }

  /** The position after the collection's last item (0 for an empty one). */
  async nextPosition(em: EntityManager, collectionId: number): Promise<number> {
    const { next } = (await em
      .createQueryBuilder(CollectionItemEntity, 'i')
      .select('COALESCE(MAX(i.position) + 1, 0)::int', 'next')
      .where('i.collection_id = :id', { id: collectionId })
      .getRawOne<{ next: number }>())!;
    return next;
  }

  /** Moves the items at or after `position` down by one, to make room there. */
  async shiftItemsFrom(em: EntityManager, collectionId: number, position: number): Promise<void> {
    await em
      .createQueryBuilder()
      .update(CollectionItemEntity)
      .set({ position: () => 'position + 1' })
      .where('collection_id = :id AND position >= :position', { id: collectionId, position })
      .execute();
  }
  /** Unpins the site's pinned collection other than `exceptId`; answers what it unpinned. */
  async unpinOthers(
    em: EntityManager,
    siteId: number,
    exceptId: number | null,
  ): Promise<Array<{ id: number; slug: string }>> {
    const { rows } = await sql<{ id: number; slug: string }>(
      em,
      `UPDATE collections SET pinned = false, updated_at = now()
        WHERE site_id = $1 AND pinned AND id IS DISTINCT FROM $2 RETURNING id, slug`,
      [siteId, exceptId],
      { bigints: ['id'] },
    );
    return rows;
  }
}
