import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { FindOptionsWhere, Repository } from 'typeorm';
import { applyKeyset, keysetPage, Page } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { ContentQueryDto } from './dto/content.dto';
import { ContentItemEntity } from './entities/content-item.entity';

/** Every column but the body: what a list shows. */
const SUMMARY_COLUMNS: Array<keyof ContentItemEntity> = [
  'id', 'siteId', 'type', 'title', 'slug', 'format', 'excerpt', 'status', 'publishAt', 'publishedAt', 'tags', 'categories',
  'authors', 'template', 'thumbnail', 'description', 'customFields', 'attachmentIds', 'version', 'createdAt', 'updatedAt',
];

/** The content queries that outgrow a method: the filtered keyset list and the v1 offset list. */
@Injectable()
export class ContentRepository {
  constructor(@InjectRepository(ContentItemEntity) private readonly items: Repository<ContentItemEntity>) {}

  /**
   * Newest first, by publishedAt when the list holds only published items (every anonymous
   * list, and `status=published`), else by createdAt. Indexes: (site_id, status, published_at,
   * id) and (site_id, created_at, id); the search and tag filters have GIN indexes.
   */
  async list(site: SiteContext, query: ContentQueryDto, withDrafts: boolean): Promise<Page<ContentItemEntity>> {
    const status = withDrafts ? query.status : 'published';
    if (!withDrafts && query.status !== undefined && query.status !== 'published') return keysetPage([], query.limit, () => []);
    const byPublished = status === 'published';
    const dateColumn = byPublished ? 'c.published_at' : 'c.created_at';
    const qb = this.items.createQueryBuilder('c')
      .select(SUMMARY_COLUMNS.map((col) => `c.${col}`))
      .where('c.site_id = :siteId', { siteId: site.id });
    if (status) qb.andWhere('c.status = :status', { status });
    if (query.type) qb.andWhere('c.type = :type', { type: query.type });
    if (query.tag) qb.andWhere('c.tags @> ARRAY[:tag]::text[]', { tag: query.tag });
    if (query.category) qb.andWhere('c.categories @> ARRAY[:category]::text[]', { category: query.category });
    if (query.author) qb.andWhere('c.authors @> CAST(:author AS jsonb)', { author: JSON.stringify([{ id: query.author }]) });
    if (query.q) qb.andWhere("c.search @@ websearch_to_tsquery('simple', :q)", { q: query.q });
    if (query.from) qb.andWhere(`${dateColumn} >= :from`, { from: query.from });
    if (query.to) qb.andWhere(`${dateColumn} < :to`, { to: query.to });
    const rows = await applyKeyset(qb, [{ expr: dateColumn, type: 'timestamp' }, { expr: 'c.id', type: 'number' }], query).getMany();
    return keysetPage(rows, query.limit, (c) => [(byPublished ? c.publishedAt! : c.createdAt).toISOString(), c.id]);
  }

  /** All digits is an id (API.md §3), anything else a slug. */
  findByIdOrSlug(site: SiteContext, idOrSlug: string, withDrafts: boolean): Promise<ContentItemEntity | null> {
    const where: FindOptionsWhere<ContentItemEntity> = { siteId: site.id };
    if (/^\d+$/.test(idOrSlug)) {
      const id = Number(idOrSlug);
      if (!Number.isSafeInteger(id)) return Promise.resolve(null);
      where.id = id;
    } else {
      where.slug = idOrSlug;
    }
    if (!withDrafts) where.status = 'published';
    return this.items.findOne({ where });
  }

  /** v1 `pages/{limit}/{offset}` (API.md §3 keeps offsets for v1): newest first, with the total. */
  async offsetPage(site: SiteContext, limit: number, offset: number): Promise<{ rows: ContentItemEntity[]; total: number }> {
    const [rows, total] = await this.items.findAndCount({
      where: { siteId: site.id }, order: { createdAt: 'DESC', id: 'DESC' }, take: limit, skip: offset,
    });
    return { rows, total };
  }

  /** v1 `pages/all`: every item of the site, newest first. */
  all(site: SiteContext): Promise<ContentItemEntity[]> {
    return this.items.find({ where: { siteId: site.id }, order: { createdAt: 'DESC', id: 'DESC' } });
  }
}
