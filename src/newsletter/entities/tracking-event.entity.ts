import { Check, Column, Entity, ForeignKey, Index } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';

export type TrackingKind = 'open' | 'click';

/** One acknowledged open or click; a machine's is kept but flagged (docs/newsletter.md, "Tracking"). */
@ForeignKey('newsletter_campaign_recipients', ['campaign_id', 'subscription_id'], ['campaign_id', 'subscription_id'], {
  name: 'newsletter_tracking_events_recipient_fkey',
  onDelete: 'CASCADE',
})
@Entity('newsletter_tracking_events')
// A recipient's events (their erasure cascades from the recipient row).
@Index('newsletter_tracking_events_campaign_id_subscription_id_idx', ['campaignId', 'subscriptionId'])
// Retention (NEWSLETTER_TRACKING_RETENTION_DAYS): the oldest events first.
@Index('newsletter_tracking_events_created_at_idx', ['createdAt'])
@Check('newsletter_tracking_events_kind_check', `"kind" IN ('open', 'click')`)
export class TrackingEventEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @RefColumn() campaignId: number;
  @RefColumn() subscriptionId: number;
  @Column({ type: 'text' }) kind: TrackingKind;
  @Column({ type: 'integer', nullable: true }) linkIndex: number | null;
  @Column({ type: 'boolean', default: false }) machine: boolean;
  @Column({ type: 'text', nullable: true }) machineReason: string | null;
  @Column({ type: 'text', nullable: true }) userAgent: string | null;
  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' }) createdAt: Date;
}
