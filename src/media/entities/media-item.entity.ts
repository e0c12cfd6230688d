import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';
import { idTransformer } from '../../database/id.transformer';

/**
 * A stored file of a site. Thumbnails are rows of their own pointing at their original
 * (`originalId`); an original has `originalId = null`. The file is addressed by `storageKey`,
 * which the server generates (never a client's file name).
 */
@Entity('media_items')
@Index('media_items_site_id_created_at_id_idx', ['siteId', 'createdAt', 'id'])
@Index('media_items_originals_idx', ['siteId', 'createdAt', 'id'], { where: 'original_id IS NULL' })
@Index('media_items_original_id_idx', ['originalId'])
@Index('media_items_storage_key_key', ['storageKey'], { unique: true })
// Trigram index for ?q= (title and file name); created by hand in the migration.
@Index('media_items_search_trgm_idx', { synchronize: false })
export class MediaItemEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @RefColumn({ nullable: true }) originalId: number | null;
  @ManyToOne(() => MediaItemEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'original_id' })
  original?: MediaItemEntity | null;
  @Column({ type: 'text' }) storageKey: string;
  /** The client's file name, reduced to a safe base name; shown, never used as a path. */
  @Column({ type: 'text' }) fileName: string;
  /** Detected from the bytes, not taken from the client. */
  @Column({ type: 'text' }) contentType: string;
  @Column({ type: 'bigint', transformer: idTransformer }) filesize: number;
  @Column({ type: 'integer', nullable: true }) width: number | null;
  @Column({ type: 'integer', nullable: true }) height: number | null;
  @Column({ type: 'text', default: '' }) title: string;
  @Column({ type: 'text', default: '' }) caption: string;
  @Column({ type: 'text', default: '' }) description: string;
  @Column({ type: 'text', default: '' }) altText: string;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
