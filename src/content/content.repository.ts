import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { ShapedReads } from '../database/fast-read';
import { sql } from '../database/sql';
import {
  applyKeysetShape,
  KeysetColumn,
  keysetPage,
  keysetParameters,
  keysetShape,
  Page,
} from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { ContentEventPayload } from './content.events';
import { ContentQueryDto } from './dto/content.dto';
import { ContentItemEntity } from './entities/content-item.entity';

/** Every column but the body: what a list shows. */
const SUMMARY_COLUMNS: Array<keyof ContentItemEntity> = [
  'id',
  'siteId',
  'type',
  'title',
  'slug',
  'format',
  'excerpt',
  'status',
  'publishAt',
  'publishedAt',
  'tags',
  'categories',
  'authors',
  'template',
  'thumbnail',
  'description',
  'customFields',
  'attachmentIds',
  'version',
  'createdAt',
  'updatedAt',
];

/** What another module may read of a content item (collections list these). */
export type ContentSummary = Pick<
  ContentItemEntity,
  'id' | 'type' | 'title' | 'slug' | 'excerpt' | 'status' | 'publishedAt' | 'thumbnail'
>;
const REFERENCE_COLUMNS = ['id', 'type', 'title', 'slug', 'excerpt', 'status', 'publishedAt', 'thumbnail'] as const;

/** Newest first by publication (lists of published items only) or by creation. */
const KEYSETS: Record<'published' | 'created', KeysetColumn[]> = {
  published: [
    { expr: 'c.published_at', type: 'timestamp' },
    { expr: 'c.id', type: 'number' },
  ],
  created: [
    { expr: 'c.created_at', type: 'timestamp' },
    { expr: 'c.id', type: 'number' },
  ],
};

/** The content queries that outgrow a method: the filtered keyset list and the offset list. */
@Injectable()
export class ContentRepository {
  private readonly listReads = new ShapedReads<ContentItemEntity>();
  private readonly oneReads = new ShapedReads<ContentItemEntity>();
  private readonly offsetReads = new ShapedReads<ContentItemEntity>();
  private readonly allReads = new ShapedReads<ContentItemEntity>();

  constructor(@InjectRepository(ContentItemEntity) private readonly items: Repository<ContentItemEntity>) {}

  /**
   * Newest first, by publishedAt when the list holds only published items (every anonymous
   * list, and `status=published`), else by createdAt. Indexes: (site_id, status, published_at,
   * id) and (site_id, created_at, id); the search and tag filters have GIN indexes.
   */
  async list(site: SiteContext, query: ContentQueryDto, withDrafts: boolean): Promise<Page<ContentItemEntity>> {
    const status = withDrafts ? query.status : 'published';
    if (!withDrafts && query.status !== undefined && query.status !== 'published')
      return keysetPage([], query.limit, () => []);
    const order: keyof typeof KEYSETS = status === 'published' ? 'published' : 'created';
    const params = {
      siteId: site.id,
      status,
      type: query.type,
      tag: query.tag,
      category: query.category,
      author: query.author === undefined ? undefined : JSON.stringify([{ id: query.author }]),
      q: query.q,
      from: query.from,
      to: query.to,
      ...keysetParameters(KEYSETS[order], query),
    };
    // Which filters are present, the order and the page: everything else is a parameter.
    const shape = {
      ...keysetShape(query),
      order,
      status: Boolean(status),
      type: Boolean(query.type),
      tag: Boolean(query.tag),
      category: Boolean(query.category),
      author: Boolean(query.author),
      q: Boolean(query.q),
      from: Boolean(query.from),
      to: Boolean(query.to),
    };
    const { entities } = await this.listReads.read(shape, params, (s) => {
      const keyset = KEYSETS[s.order];
      const dateColumn = keyset[0].expr;
      const qb = this.items
        .createQueryBuilder('c')
        .select(SUMMARY_COLUMNS.map((col) => `c.${col}`))
        .where('c.site_id = :siteId');
      if (s.status) qb.andWhere('c.status = :status');
      if (s.type) qb.andWhere('c.type = :type');
      if (s.tag) qb.andWhere('c.tags @> ARRAY[:tag]::text[]');
      if (s.category) qb.andWhere('c.categories @> ARRAY[:category]::text[]');
      if (s.author) qb.andWhere('c.authors @> CAST(:author AS jsonb)');
      if (s.q) qb.andWhere("c.search @@ websearch_to_tsquery('simple', :q)");
      if (s.from) qb.andWhere(`${dateColumn} >= :from`);
      if (s.to) qb.andWhere(`${dateColumn} < :to`);
      return applyKeysetShape(qb, keyset, s);
    });
    return keysetPage(entities, query.limit, (c) => [
      (order === 'published' ? c.publishedAt! : c.createdAt).toISOString(),
      c.id,
    ]);
  }

  /** All digits is an id, anything else a slug. */
  async findByIdOrSlug(site: SiteContext, idOrSlug: string, withDrafts: boolean): Promise<ContentItemEntity | null> {
    const byId = /^\d+$/.test(idOrSlug);
    const id = byId ? Number(idOrSlug) : undefined;
    if (byId && !Number.isSafeInteger(id)) return null;
    const { entities } = await this.oneReads.read(
      { byId, withDrafts },
      { siteId: site.id, id, slug: idOrSlug },
      (s) => {
        const qb = this.items.createQueryBuilder('c').where('c.site_id = :siteId').limit(1);
        qb.andWhere(s.byId ? 'c.id = :id' : 'c.slug = :slug');
        if (!s.withDrafts) qb.andWhere("c.status = 'published'");
        return qb;
      },
    );
    return entities[0] ?? null;
  }

  /**
   * An offset page, newest first, with the total, in one statement (v1; docs/content.md "v1
   * pages"). The offset is walked in the index alone (a deferred join: the page's ids by an
   * index-only scan of `(site_id, created_at, id)`, then only those rows read), so a page a
   * million rows deep does not read a million rows; the total is the site's count, kept by
   * triggers (`content_counts`), not a scan of its items. The offset is a parameter (one
   * prepared statement a limit); the limit is written into the SQL, so even the generic plan of
   * that statement expects a page of rows and joins them by primary key (with `LIMIT $n` it
   * expected a tenth of the table and hashed all of it).
   */
  async offsetPage(
    site: SiteContext,
    limit: number,
    offset: number,
  ): Promise<{ rows: ContentItemEntity[]; total: number }> {
    const { entities, extra } = await this.offsetReads.read({ limit }, { siteId: site.id, offset }, (s) =>
      this.items
        .createQueryBuilder('c')
        .addSelect('(SELECT t.items FROM content_counts t WHERE t.site_id = :siteId)', 'total')
        .where('c.site_id = :siteId')
        .andWhere(
          `c.id IN (SELECT p.id FROM content_items p WHERE p.site_id = :siteId
                     ORDER BY p.created_at DESC, p.id DESC LIMIT ${s.limit} OFFSET :offset)`,
        )
        .orderBy('c.created_at', 'DESC')
        .addOrderBy('c.id', 'DESC'),
    );
    if (entities.length > 0) return { rows: entities, total: Number(extra(0, 'total')) };
    // Past the last page: no row to carry the total.
    const { rows } = await sql<{ items: string }>(
      this.items.manager,
      'SELECT items FROM content_counts WHERE site_id = $1',
      [site.id],
    );
    return { rows: [], total: Number(rows[0]?.items ?? 0) };
  }

  /** Every item of the site, newest first. */
  async all(site: SiteContext): Promise<ContentItemEntity[]> {
    const { entities } = await this.allReads.read({}, { siteId: site.id }, () =>
      this.items
        .createQueryBuilder('c')
        .where('c.site_id = :siteId')
        .orderBy('c.created_at', 'DESC')
        .addOrderBy('c.id', 'DESC'),
    );
    return entities;
  }

  /** The summaries of these items of the site, by id, in one query (ids not found are absent). */
  async summariesByIds(siteId: number, ids: number[]): Promise<Map<number, ContentSummary>> {
    if (ids.length === 0) return new Map();
    const rows = await this.items
      .createQueryBuilder('c')
      .select(REFERENCE_COLUMNS.map((col) => `c.${col}`))
      .where('c.site_id = :siteId AND c.id = ANY(:ids)', { siteId, ids })
      .getMany();
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** The SQL condition that the content whose id is in `column` is published. */
  publishedCondition(column: string): string {
    return `EXISTS (SELECT 1 FROM content_items pc WHERE pc.id = ${column} AND pc.status = 'published')`;
  }

  /**
   * Takes these media ids out of the attachments of every item of the site that lists one, as
   * a change like any other: version + 1, `updated_at` now, and a revision (action `updated`,
   * actor `system`) whose snapshot is the previous revision's with the new attachments (every
   * write leaves the latest revision equal to the row). Answers the changed items; none when
   * no item lists them, so running it again changes nothing.
   *
   * The items are locked first, in id order: two deliveries touching the same items cannot
   * deadlock, and the update's snapshot then sees every revision committed before it.
   * `attachment_ids && $2` is what the GIN index `content_items_attachment_ids_idx` serves.
   */
  async removeAttachments(em: EntityManager, siteId: number, mediaIds: number[]): Promise<ContentEventPayload[]> {
    if (mediaIds.length === 0) return [];
    const { rows: locked } = await sql<{ id: number }>(
      em,
      `SELECT id FROM content_items WHERE site_id = $1 AND attachment_ids && $2::bigint[] ORDER BY id FOR UPDATE`,
      [siteId, mediaIds],
      { bigints: ['id'] },
    );
    if (locked.length === 0) return [];
    const { rows } = await sql<ContentEventPayload>(
      em,
      `WITH changed AS (
         UPDATE content_items c
            SET attachment_ids = ARRAY(
                  SELECT a FROM unnest(c.attachment_ids) WITH ORDINALITY AS u(a, n)
                   WHERE a <> ALL($2::bigint[]) ORDER BY n),
                version = c.version + 1,
                updated_at = now()
          WHERE c.site_id = $1 AND c.id = ANY($3::bigint[]) AND c.attachment_ids && $2::bigint[]
          RETURNING c.id, c.type, c.slug, c.status, c.version, c.attachment_ids
       ), revisions AS (
         INSERT INTO content_revisions (site_id, content_id, number, action, snapshot, actor_type)
         SELECT $1, ch.id, ch.version, 'updated',
                jsonb_set(r.snapshot, '{attachmentIds}', to_jsonb(ch.attachment_ids)), 'system'
           FROM changed ch
           JOIN content_revisions r ON r.content_id = ch.id AND r.number = ch.version - 1
       )
       SELECT id, type, slug, status, version FROM changed ORDER BY id`,
      [siteId, mediaIds, locked.map((r) => r.id)],
      { bigints: ['id'] },
    );
    return rows;
  }
}
