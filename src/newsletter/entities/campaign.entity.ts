import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';
import { idArrayTransformer, idTransformer } from '../../database/id.transformer';

export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'sending', 'paused', 'sent', 'canceled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** A string, number or boolean attribute a recipient must have (JSON containment, `attributes @> filter`). */
export type AttributeFilter = Record<string, string | number | boolean>;

/**
 * One mailing to the active, deliverable members of some lists (docs/newsletter.md, "Campaigns").
 * `sendCursor` is the last subscription id the send handed over: recipients stream in id order.
 */
@ForeignKey('sites', ['site_id'], ['id'], { onDelete: 'CASCADE' })
@Entity('newsletter_campaigns')
@Index('newsletter_campaigns_site_id_slug_key', ['siteId', 'slug'], { unique: true })
// Newest first (keyset on id), every status or one.
@Index('newsletter_campaigns_site_id_id_idx', ['siteId', 'id'])
@Index('newsletter_campaigns_site_id_status_id_idx', ['siteId', 'status', 'id'])
// The sends to resume when an instance starts.
@Index('newsletter_campaigns_sending_idx', ['id'], { where: "status = 'sending'" })
@Check(
  'newsletter_campaigns_status_check',
  `"status" IN ('draft', 'scheduled', 'sending', 'paused', 'sent', 'canceled')`,
)
export class CampaignEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @Column({ type: 'text' }) name: string;
  /** C collation: byte order, so `slug-` prefixes are an index range (next free slug). */
  @Column({ type: 'text', collation: 'C' }) slug: string;
  @Column({ type: 'text', default: '' }) subject: string;
  @Column({ type: 'text', default: '' }) previewText: string;
  @Column({ type: 'text', nullable: true }) fromName: string | null;
  @Column({ type: 'text', nullable: true }) fromAddress: string | null;
  @Column({ type: 'text', nullable: true }) replyTo: string | null;
  /** Liquid HTML (the email module's template language), rendered per recipient. */
  @Column({ type: 'text', default: '' }) contentHtml: string;
  /** An email template of type `newsletter.campaign` that wraps the content instead of the site's published one. */
  @RefColumn({ nullable: true }) templateId: number | null;
  @Column({ type: 'bigint', array: true, default: () => "'{}'", transformer: idArrayTransformer }) listIds: number[];
  @Column({ type: 'jsonb', nullable: true }) attributeFilter: AttributeFilter | null;
  @Column({ type: 'text', default: 'draft' }) status: CampaignStatus;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) scheduledAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) startedAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) sentAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) canceledAt: Date | null;
  @Column({ type: 'bigint', default: 0, transformer: idTransformer }) sendCursor: number;
  /** Recipients handed to the email module so far. */
  @Column({ type: 'integer', default: 0 }) recipientCount: number;
  /** The audience counted when the send started (null before). */
  @Column({ type: 'integer', nullable: true }) audienceCount: number | null;
  @Column({ type: 'integer', default: 1 }) version: number;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}

/**
 * A campaign's counters, kept on write (tracking flushes, the email_messages trigger, the
 * memberships trigger): the statistics read this row, never the events.
 */
@ForeignKey('newsletter_campaigns', ['campaign_id'], ['id'], { onDelete: 'CASCADE' })
@Entity('newsletter_campaign_stats')
export class CampaignStatsEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) campaignId: number;
  @RefColumn() siteId: number;
  @Column({ type: 'integer', default: 0 }) delivered: number;
  @Column({ type: 'integer', default: 0 }) failed: number;
  @Column({ type: 'integer', default: 0 }) bounced: number;
  /** Complaints (ARF, providers) of the campaign's copies (docs/deliverability.md). */
  @Column({ type: 'integer', default: 0 }) complaints: number;
  @Column({ type: 'integer', default: 0 }) opens: number;
  @Column({ type: 'integer', default: 0 }) uniqueOpens: number;
  @Column({ type: 'integer', default: 0 }) machineOpens: number;
  @Column({ type: 'integer', default: 0 }) uniqueMachineOpens: number;
  @Column({ type: 'integer', default: 0 }) clicks: number;
  @Column({ type: 'integer', default: 0 }) uniqueClicks: number;
  @Column({ type: 'integer', default: 0 }) machineClicks: number;
  @Column({ type: 'integer', default: 0 }) uniqueMachineClicks: number;
  @Column({ type: 'integer', default: 0 }) unsubscribes: number;
}

/** A link of a campaign's content, by its index in the click tokens; indexes never change meaning. */
@ForeignKey('newsletter_campaigns', ['campaign_id'], ['id'], { onDelete: 'CASCADE' })
@Entity('newsletter_campaign_links')
export class CampaignLinkEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) campaignId: number;
  @PrimaryColumn({ type: 'integer' }) linkIndex: number;
  @RefColumn() siteId: number;
  @Column({ type: 'text' }) url: string;
  @Column({ type: 'integer', default: 0 }) clicks: number;
  @Column({ type: 'integer', default: 0 }) machineClicks: number;
}
