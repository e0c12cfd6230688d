import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { RefColumn } from '../../database/columns';
import { idTransformer } from '../../database/id.transformer';

/**
 * One subscription a campaign was handed to the email module for, written in the same
 * transaction as the mail: a send that resumes skips it, so nobody is mailed twice. Its first
 * open and click (human and machine apart) make the unique counts.
 */
@ForeignKey('newsletter_campaigns', ['campaign_id'], ['id'], { onDelete: 'CASCADE' })
@ForeignKey('newsletter_subscriptions', ['subscription_id'], ['id'], { onDelete: 'CASCADE' })
@Entity('newsletter_campaign_recipients')
// A subscription's latest campaign (unsubscribe attribution) and its deletion's cascade.
@Index('newsletter_campaign_recipients_subscription_id_created_at_idx', ['subscriptionId', 'createdAt'])
export class CampaignRecipientEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) campaignId: number;
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) subscriptionId: number;
  @RefColumn() siteId: number;
  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' }) createdAt: Date;
  /** When the SMTP server took its copy (the email_messages trigger). */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) deliveredAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) openedAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) machineOpenedAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) clickedAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) machineClickedAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) unsubscribedAt: Date | null;
}
