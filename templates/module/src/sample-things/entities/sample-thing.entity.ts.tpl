import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';

// @if !lifecycle
export const SAMPLE_THING_STATUSES = ['draft', 'published'] as const;
// @end
// @if lifecycle
export const SAMPLE_THING_STATUSES = ['draft', 'published', 'archived'] as const;
// @end
export type SampleThingStatus = (typeof SAMPLE_THING_STATUSES)[number];

/** A sample thing of a site: drafts for keys, the published ones for anyone (docs/sample-things.md). */
@Entity('sample_things')
@Index('sample_things_site_id_slug_key', ['siteId', 'slug'], { unique: true })
// A key's list (every status) and the public list (published only), newest first.
@Index('sample_things_site_id_created_at_id_idx', ['siteId', 'createdAt', 'id'])
@Index('sample_things_site_id_status_created_at_id_idx', ['siteId', 'status', 'createdAt', 'id'])
// @if !lifecycle
@Check('sample_things_status_check', `(status = ANY (ARRAY['draft'::text, 'published'::text]))`)
// @end
// @if lifecycle
@Check('sample_things_status_check', `(status = ANY (ARRAY['draft'::text, 'published'::text, 'archived'::text]))`)
// @end
export class SampleThingEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @Column({ type: 'text' }) title: string;
  @Column({ type: 'text', collation: 'C' }) slug: string;
  @Column({ type: 'text', default: '' }) body: string;
  @Column({ type: 'text', default: 'draft' }) status: SampleThingStatus;
  /** When it was first published; kept when it goes back to draft. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) publishedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
