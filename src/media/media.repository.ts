import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository, SelectQueryBuilder } from 'typeorm';
import { applyKeyset, CursorQueryDto, keysetPage, Page } from '../common/pagination/page';
import { sql } from '../database/sql';
import { MediaQueryDto } from './dto/media.dto';
import { MediaItemEntity } from './entities/media-item.entity';
import { MediaCategoryEntity, MediaTagEntity } from './entities/media-term.entity';

/** A stored file as the files middleware serves it. */
export interface StoredFile {
  id: number;
  content_type: string;
  file_name: string;
  filesize: number;
}

/** A category or tag of a media item. */
export interface MediaTermRow {
  media_id: number;
  id: number;
  name: string;
  slug: string;
}

/** The media queries (docs/modules.md): the lists, hot paths and link tables. */
@Injectable()
export class MediaRepository {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(MediaItemEntity) private readonly items: Repository<MediaItemEntity>,
  ) {}

  /** These items of the site (ids not found are absent), in no order. */
  itemsByIds(siteId: number, ids: number[]): Promise<MediaItemEntity[]> {
    return this.withOriginal().where('m.site_id = :siteId AND m.id IN (:...ids)', { siteId, ids }).getMany();
  }

  /** Newest first, filtered by the query's original, contentType, q, category and tag. */
  async list(siteId: number, query: MediaQueryDto): Promise<Page<MediaItemEntity>> {
    const qb = this.withOriginal().where('m.site_id = :siteId', { siteId });
    if (query.original !== undefined)
      qb.andWhere(query.original ? 'm.original_id IS NULL' : 'm.original_id IS NOT NULL');
    if (query.contentType?.endsWith('/*'))
      qb.andWhere('m.content_type LIKE :family', { family: `${query.contentType.slice(0, -1)}%` });
    else if (query.contentType) qb.andWhere('m.content_type = :contentType', { contentType: query.contentType });
    // Same expression as media_items_search_trgm_idx.
    if (query.q) qb.andWhere(`(m.title || ' ' || m.file_name) ILIKE :q`, { q: `%${escapeLike(query.q)}%` });
    if (query.category)
      whereTerm(qb, 'media_item_categories', 'category_id', 'media_categories', 'category', query.category);
    if (query.tag) whereTerm(qb, 'media_item_tags', 'tag_id', 'media_tags', 'tag', query.tag);
    const rows = await applyKeyset(
      qb,
      [
        { expr: 'm.created_at', type: 'timestamp' },
        { expr: 'm.id', type: 'number' },
      ],
      query,
    ).getMany();
    return keysetPage(rows, query.limit, (r) => [r.createdAt.toISOString(), r.id]);
  }

  /** A page by offset, newest first, and the site's total (v1). */
  offsetPage(siteId: number, limit: number, offset: number): Promise<[MediaItemEntity[], number]> {
    return this.withOriginal()
      .where('m.site_id = :siteId', { siteId })
      .orderBy('m.created_at', 'DESC')
      .addOrderBy('m.id', 'DESC')
      .offset(offset)
      .limit(limit)
      .getManyAndCount();
  }

  async item(siteId: number, id: number): Promise<MediaItemEntity | null> {
    return this.withOriginal().where('m.site_id = :siteId AND m.id = :id', { siteId, id }).getOne();
  }

  /** The thumbnails of these originals, smallest first. */
  thumbnailsOf(siteId: number, originalIds: number[]): Promise<MediaItemEntity[]> {
    return this.withOriginal()
      .where('m.site_id = :siteId AND m.original_id IN (:...ids)', { siteId, ids: originalIds })
      .orderBy('m.width', 'ASC')
      .addOrderBy('m.id', 'ASC')
      .getMany();
  }

  /** The site's categories or tags, in id order. */
  async listTerms<T extends MediaCategoryEntity | MediaTagEntity>(
    entity: new () => T,
    siteId: number,
    query: CursorQueryDto,
  ): Promise<Page<T>> {
    const qb = this.dataSource
      .getRepository<T>(entity)
      .createQueryBuilder('t')
      .where('t.site_id = :siteId', { siteId });
    const rows = await applyKeyset(qb, [{ expr: 't.id', type: 'number' }], query, 'ASC').getMany();
    return keysetPage(rows, query.limit, (t) => [t.id]);
  }

  /** Which of these storage keys a media item still holds. */
  async heldKeys(keys: string[]): Promise<Set<string>> {
    const held = await this.dataSource
      .getRepository(MediaItemEntity)
      .createQueryBuilder('m')
      .select('m.storage_key', 'key')
      .where('m.storage_key = ANY(:keys)', { keys })
      .getRawMany<{ key: string }>();
    return new Set(held.map((r) => r.key));
  }

  /** The file a public path names; every file request asks, so one indexed lookup, no entity. */
  async fileByKey(key: string): Promise<StoredFile | null> {
    const { rows } = await sql<StoredFile>(
      this.dataSource,
      'SELECT id, content_type, file_name, filesize FROM media_items WHERE storage_key = $1',
      [key],
      { bigints: ['id', 'filesize'] },
    );
    return rows[0] ?? null;
  }

  /**
   * Which of these ids are media items of the site, kept until `em`'s transaction ends: FOR KEY
   * SHARE makes a delete of one of them wait for that transaction (and a delete already under
   * way answers the row as gone), so an attachment is never written after its media's
   * `media.deleted` was handled. In id order, so two callers lock alike.
   */
  async idsInSite(em: EntityManager, siteId: number, ids: number[]): Promise<Set<number>> {
    const { rows } = await sql<{ id: number }>(
      em,
      'SELECT id FROM media_items WHERE site_id = $1 AND id = ANY($2::bigint[]) ORDER BY id FOR KEY SHARE',
      [siteId, ids],
      { bigints: ['id'] },
    );
    return new Set(rows.map((r) => r.id));
  }

  /** The terms (categories or tags, through their link table) of these items, by name. */
  async termsOf(
    link: 'media_item_categories' | 'media_item_tags',
    column: 'category_id' | 'tag_id',
    terms: 'media_categories' | 'media_tags',
    mediaIds: number[],
  ): Promise<MediaTermRow[]> {
    const { rows } = await sql<MediaTermRow>(
      this.dataSource,
      `SELECT l.media_id, t.id, t.name, t.slug FROM ${link} l JOIN ${terms} t ON t.id = l.${column}
        WHERE l.media_id = ANY($1::bigint[]) ORDER BY t.name, t.id`,
      [mediaIds],
      { bigints: ['media_id', 'id'] },
    );
    return rows;
  }

  /** An item with its original's id and storage key (a thumbnail's links name the original). */
  private withOriginal(): SelectQueryBuilder<MediaItemEntity> {
    return this.items.createQueryBuilder('m').leftJoin('m.original', 'o').addSelect(['o.id', 'o.storageKey']);
  }
}

/** Items with a category or tag, by its id (all digits) or its slug. */
function whereTerm(
  qb: SelectQueryBuilder<MediaItemEntity>,
  link: string,
  column: string,
  terms: string,
  param: string,
  ref: string,
): void {
  const byId = /^\d+$/.test(ref);
  qb.andWhere(
    `EXISTS (SELECT 1 FROM ${link} l JOIN ${terms} t ON t.id = l.${column}
                WHERE l.media_id = m.id AND t.site_id = :siteId AND ${byId ? `t.id = :${param}` : `t.slug = :${param}`})`,
    { [param]: byId ? Number(ref) : ref },
  );
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
