import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';

export const LIST_VISIBILITIES = ['public', 'private'] as const;
export type ListVisibility = (typeof LIST_VISIBILITIES)[number];

/** A mailing list of a site (docs/newsletter.md): who is on it lives in newsletter_memberships. */
@Entity('newsletter_lists')
// The operator's list, newest first (keyset on id).
@Index('newsletter_lists_site_id_id_idx', ['siteId', 'id'])
@Check('newsletter_lists_visibility_check', `"visibility" IN ('public', 'private')`)
export class NewsletterListEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text', default: '' }) description: string;
  /** New members confirm by mail before they are `active` (true unless the site says otherwise). */
  @Column({ type: 'boolean', default: true }) doubleOptIn: boolean;
  /** Only `public` lists may be named in the anonymous subscribe. */
  @Column({ type: 'text', default: 'public' }) visibility: ListVisibility;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
