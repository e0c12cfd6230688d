import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';
import { idArrayTransformer } from '../../database/id.transformer';

export const DELIVERABILITIES = ['deliverable', 'bounced', 'complained', 'suppressed'] as const;
export type Deliverability = (typeof DELIVERABILITIES)[number];

/**
 * One address of a site's audience (docs/newsletter.md): one row per address and site, with
 * its deliverability; its lists are newsletter_memberships rows.
 */
@Entity('newsletter_subscriptions')
@Index('newsletter_subscriptions_site_id_email_key', ['siteId', 'email'], { unique: true })
// Newest first (keyset on id), every address or one deliverability.
@Index('newsletter_subscriptions_site_id_id_idx', ['siteId', 'id'])
@Index('newsletter_subscriptions_site_id_deliverability_id_idx', ['siteId', 'deliverability', 'id'])
// Written by hand in the migration: jsonb_path_ops GIN on attributes (`attributeName`/`attributeValue`).
// `emailContains` has no index on purpose: a trigram GIN adds ~20 entries per imported row (docs/newsletter.md).
@Index('newsletter_subscriptions_attributes_idx', { synchronize: false })
@Check(
  'newsletter_subscriptions_deliverability_check',
  `"deliverability" IN ('deliverable', 'bounced', 'complained', 'suppressed')`,
)
export class SubscriptionEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  /** Trimmed and lower-cased. */
  @Column({ type: 'text' }) email: string;
  @Column({ type: 'text', default: '' }) name: string;
  @Column({ type: 'jsonb', default: () => "'{}'" }) attributes: Record<string, unknown>;
  @Column({ type: 'text', default: 'deliverable' }) deliverability: Deliverability;
  /** How the address arrived: `form`, `api`, `import`, `sync`. */
  @Column({ type: 'text' }) source: string;
  /** Consent evidence: when, from where, for which lists, and the words shown. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) consentAt: Date | null;
  @Column({ type: 'inet', nullable: true }) consentIp: string | null;
  @Column({ type: 'text', nullable: true }) consentUserAgent: string | null;
  @Column({ type: 'bigint', array: true, nullable: true, transformer: idArrayTransformer }) consentListIds:
    number[] | null;
  @Column({ type: 'text', nullable: true }) consentWording: string | null;
  /** The live confirmation link's nonce (single use: cleared when used or replaced). */
  @Column({ type: 'text', nullable: true }) confirmNonce: string | null;
  /** Part of every preferences / unsubscribe link; a new row (after a delete) gets a new one. */
  @Column({ type: 'text' }) manageNonce: string;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
