import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';

export const BOUNCE_KINDS = ['hard', 'soft', 'complaint'] as const;
export type BounceKind = (typeof BOUNCE_KINDS)[number];

/**
 * A bounce or complaint received for one message (docs/deliverability.md): a DSN, an ARF report
 * or a provider's event. One per message and kind, so a report received twice counts once.
 */
@Check('email_bounces_kind_check', `(kind = ANY (ARRAY['hard'::text, 'soft'::text, 'complaint'::text]))`)
@ForeignKey('email_messages', ['message_id'], ['id'], { onDelete: 'CASCADE' })
@Entity('email_bounces')
@Index('email_bounces_message_id_kind_key', ['messageId', 'kind'], { unique: true })
@Index('email_bounces_site_id_recipient_created_at_idx', ['siteId', 'recipient', 'createdAt'])
export class EmailBounceEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @RefColumn() messageId: number;
  /** The address the message was sent to (the message's, never the report's). */
  @Column({ type: 'text' }) recipient: string;
  @Column({ type: 'text' }) kind: BounceKind;
  /** Where the report came from: `dsn`, `arf`, or a provider (`ses`, `postmark`, …). */
  @Column({ type: 'text' }) source: string;
  /** The RFC 3463 status (5.1.1), when the report gave one. */
  @Column({ type: 'text', nullable: true }) status: string | null;
  @Column({ type: 'text', nullable: true }) diagnostic: string | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}

export const SUPPRESSION_REASONS = ['bounced', 'complained', 'manual'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/**
 * An address of a site that mail no longer goes to (docs/deliverability.md): it bounced for good,
 * its owner complained, or an operator added it (`manual`, with a note). Campaigns, series and
 * non-essential transactional mail skip it.
 */
@Check('email_suppressions_reason_check', `(reason = ANY (ARRAY['bounced'::text, 'complained'::text, 'manual'::text]))`)
@Entity('email_suppressions')
@Index('email_suppressions_site_id_email_key', ['siteId', 'email'], { unique: true })
@Index('email_suppressions_site_id_id_idx', ['siteId', 'id'])
export class EmailSuppressionEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  /** Lower-cased. */
  @Column({ type: 'text' }) email: string;
  @Column({ type: 'text' }) reason: SuppressionReason;
  /** The operator's words, for `manual`. */
  @Column({ type: 'text', nullable: true }) note: string | null;
  /** The message whose report suppressed it. */
  @RefColumn({ nullable: true }) messageId: number | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}

/** Secrets of the server itself, made on first use and shared by every instance (the VERP key's). */
@Entity('server_secrets')
export class ServerSecretEntity {
  @PrimaryColumn({ type: 'text' }) name: string;
  @Column({ type: 'bytea' }) secret: Buffer;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
