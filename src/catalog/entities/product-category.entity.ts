import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';
import { idArrayTransformer } from '../../database/id.transformer';

/** A group of a site's products (docs/catalog.md). */
@Entity('product_categories')
@Index('product_categories_site_id_slug_key', ['siteId', 'slug'], { unique: true })
// The list: by position, then id.
@Index('product_categories_site_id_position_id_idx', ['siteId', 'position', 'id'])
@Index('product_categories_attachment_ids_idx', { synchronize: false })
export class ProductCategoryEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @Column({ type: 'text' }) name: string;
  /** C collation: byte order, so `slug-` prefixes are an index range (next free slug). */
  @Column({ type: 'text', collation: 'C' }) slug: string;
  /** The prefix the slug was made with (v1 `slug_prefix`), '' for none. */
  @Column({ type: 'text', default: '' }) slugPrefix: string;
  @Column({ type: 'text', default: '' }) description: string;
  @Column({ type: 'integer', default: 0 }) position: number;
  /** Media ids of the site, checked on write; no foreign key (media is another module). */
  @Column({ type: 'bigint', array: true, default: () => "'{}'", transformer: idArrayTransformer })
  attachmentIds: number[];
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
