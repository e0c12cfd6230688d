import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';

export const TEMPLATE_STATUSES = ['draft', 'published'] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

/** A site's template of one type (docs/email.md); at most one published per type and site. */
@Check('email_templates_status_check', `(status = ANY (ARRAY['draft'::text, 'published'::text]))`)
@Entity('email_templates')
@Index('email_templates_site_id_id_idx', ['siteId', 'id'])
@Index('email_templates_site_id_type_id_idx', ['siteId', 'type', 'id'])
@Index('email_templates_site_id_type_published_key', ['siteId', 'type'], {
  unique: true,
  where: "status = 'published'",
})
export class EmailTemplateEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @Column({ type: 'text' }) type: string;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text' }) subject: string;
  @Column({ type: 'text' }) html: string;
  /** The plain-text part; null: made from the HTML when sending. */
  @Column({ type: 'text', nullable: true }) text: string | null;
  @Column({ type: 'text', default: 'draft' }) status: TemplateStatus;
  @Column({ type: 'integer', default: 1 }) version: number;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) publishedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
