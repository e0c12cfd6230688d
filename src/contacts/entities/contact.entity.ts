import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';

export const CONTACT_STATUSES = ['new', 'open', 'closed', 'spam'] as const;
export type ContactStatus = (typeof CONTACT_STATUSES)[number];

/**
 * The words `?q=` finds a contact by: its name, subject and message, as the GIN expression index
 * (written by hand in the migration) has them. 'simple': no stemming, so every language works.
 */
export const CONTACT_SEARCH_EXPRESSION =
  "to_tsvector('simple'::regconfig, name || ' ' || coalesce(subject, '') || ' ' || message)";

/** One message of a site's contact inbox (docs/contacts.md). */
@Entity('contacts')
// The inbox, newest first: every status, one status, one sender (and eraseByEmail).
@Index('contacts_site_id_created_at_id_idx', ['siteId', 'createdAt', 'id'])
@Index('contacts_site_id_status_created_at_id_idx', ['siteId', 'status', 'createdAt', 'id'])
@Index('contacts_site_id_email_created_at_id_idx', ['siteId', 'email', 'createdAt', 'id'])
// GIN indexes written by hand in the migration: `tags @> ARRAY[tag]` and the words of `q`.
@Index('contacts_tags_idx', { synchronize: false })
@Index('contacts_search_idx', { synchronize: false })
@Check('contacts_status_check', `"status" IN ('new', 'open', 'closed', 'spam')`)
export class ContactEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @Column({ type: 'text' }) name: string;
  /** Lower-cased when stored, so the `email` filter and eraseByEmail match exactly. */
  @Column({ type: 'text' }) email: string;
  @Column({ type: 'text', nullable: true }) phone: string | null;
  @Column({ type: 'text', nullable: true }) company: string | null;
  @Column({ type: 'text', nullable: true }) subject: string | null;
  @Column({ type: 'text' }) message: string;
  /** Which form or page sent it (`contact-form`, `pricing-page`). */
  @Column({ type: 'text', default: 'contact-form' }) source: string;
  @Column({ type: 'text', default: 'new' }) status: ContactStatus;
  @Column({ type: 'text', array: true, default: () => "'{}'" }) tags: string[];
  @Column({ type: 'jsonb', default: () => "'{}'" }) metadata: Record<string, unknown>;
  /** Who sent it, as the server saw them (abuse handling); operators only. */
  @Column({ type: 'inet', nullable: true }) clientIp: string | null;
  @Column({ type: 'text', nullable: true }) userAgent: string | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
