import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';

/** A curated, ordered set of content, shown for a time window or pinned (docs/content.md). */
@Entity('collections')
@Index('collections_site_id_slug_key', ['siteId', 'slug'], { unique: true })
@Index('collections_site_id_created_at_id_idx', ['siteId', 'createdAt', 'id'])
// At most one pinned collection per site.
@Index('collections_site_id_pinned_key', ['siteId'], { unique: true, where: 'pinned' })
// "Current": the windowed collection that started last.
@Index('collections_site_id_starts_at_id_idx', ['siteId', 'startsAt', 'id'])
@Check('collections_window_check', `"ends_at" IS NULL OR ("starts_at" IS NOT NULL AND "ends_at" > "starts_at")`)
export class CollectionEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text', collation: 'C' }) slug: string;
  @Column({ type: 'text', default: '' }) description: string;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) startsAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) endsAt: Date | null;
  @Column({ type: 'boolean', default: false }) pinned: boolean;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
