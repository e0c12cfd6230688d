import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';
import { idArrayTransformer } from '../../database/id.transformer';
import type { ContentStatus } from '../content-status';

export type ContentFormat = 'html' | 'markdown';

export interface ContentAuthor {
  id: number;
  name: string;
}

/** Weighted words of title, excerpt and body; 'simple' keeps every language searchable (docs/content.md). */
export const CONTENT_SEARCH_EXPRESSION =
  "setweight(to_tsvector('simple'::regconfig, coalesce(title, '')), 'A') || " +
  "setweight(to_tsvector('simple'::regconfig, coalesce(excerpt, '')), 'B') || " +
  "setweight(to_tsvector('simple'::regconfig, coalesce(content, '')), 'C')";

/** A page, post or custom-type item of a site (API.md §5 for its statuses). */
@Entity('content_items')
@Index('content_items_site_id_slug_key', ['siteId', 'slug'], { unique: true })
// The public list: published items of a site, newest published first.
@Index('content_items_site_id_status_published_at_id_idx', ['siteId', 'status', 'publishedAt', 'id'])
// The key holder's list of every status, newest first.
@Index('content_items_site_id_created_at_id_idx', ['siteId', 'createdAt', 'id'])
// The recovery sweep: scheduled items past their time (content-publish.job.ts).
@Index('content_items_scheduled_idx', ['publishAt'], { where: `"status" = 'scheduled'` })
// GIN indexes written by hand in the migration (TypeORM cannot declare them).
@Index('content_items_search_idx', { synchronize: false })
@Index('content_items_tags_idx', { synchronize: false })
@Index('content_items_categories_idx', { synchronize: false })
// Which items attach a media item (media.deleted): `attachment_ids && ARRAY[id]`.
@Index('content_items_attachment_ids_idx', { synchronize: false })
@Check('content_items_status_check', `"status" IN ('draft', 'scheduled', 'published', 'archived')`)
@Check('content_items_published_at_check', `"status" <> 'published' OR "published_at" IS NOT NULL`)
@Check('content_items_publish_at_check', `"status" <> 'scheduled' OR "publish_at" IS NOT NULL`)
export class ContentItemEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @Column({ type: 'text' }) type: string;
  @Column({ type: 'text' }) title: string;
  /** C collation: byte order, so `slug-` prefixes are an index range (next free slug). */
  @Column({ type: 'text', collation: 'C' }) slug: string;
  @Column({ type: 'text', default: '' }) content: string;
  @Column({ type: 'text', default: 'html' }) format: ContentFormat;
  @Column({ type: 'text', default: '' }) excerpt: string;
  @Column({ type: 'text', default: 'draft' }) status: ContentStatus;
  /** When a scheduled item is due. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) publishAt: Date | null;
  /** The publication date; kept when unpublished, so publishing again keeps it. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) publishedAt: Date | null;
  @Column({ type: 'text', array: true, default: () => "'{}'" }) tags: string[];
  @Column({ type: 'text', array: true, default: () => "'{}'" }) categories: string[];
  @Column({ type: 'jsonb', default: () => "'[]'" }) authors: ContentAuthor[];
  @Column({ type: 'text', default: '' }) template: string;
  @Column({ type: 'text', default: '' }) thumbnail: string;
  @Column({ type: 'text', default: '' }) description: string;
  @Column({ type: 'jsonb', default: () => "'{}'" }) customFields: Record<string, unknown>;
  /** Media ids of the site, checked on write; no foreign key (media is another module). */
  @Column({ type: 'bigint', array: true, default: () => "'{}'", transformer: idArrayTransformer })
  attachmentIds: number[];
  /** Bumped by every change, equal to the latest revision's number; the ETag is built from it. */
  @Column({ type: 'integer', default: 1 }) version: number;
  @Column({
    type: 'tsvector',
    select: false,
    insert: false,
    update: false,
    nullable: true,
    generatedType: 'STORED',
    asExpression: CONTENT_SEARCH_EXPRESSION,
  })
  search?: string;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
