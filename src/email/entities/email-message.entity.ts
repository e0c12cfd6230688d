import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';

export const MESSAGE_STATUSES = ['queued', 'sending', 'sent', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
export type RecipientKind = 'to' | 'cc' | 'bcc';

/**
 * One recipient's copy of a mail (docs/email.md): a send to three addresses is three messages
 * sharing a batch id, each delivered and recorded on its own. A transactional copy keeps its body
 * for EMAIL_BODY_RETENTION_DAYS; a campaign copy keeps none: it names its `source` (the campaign
 * and the subscription) and is rendered from it when it is sent or shown.
 */
@Check('email_messages_recipient_kind_check', `(recipient_kind = ANY (ARRAY['to'::text, 'cc'::text, 'bcc'::text]))`)
@Check(
  'email_messages_status_check',
  `(status = ANY (ARRAY['queued'::text, 'sending'::text, 'sent'::text, 'failed'::text]))`,
)
@Check(
  'email_messages_body_check',
  '((html IS NOT NULL AND text IS NOT NULL) OR source IS NOT NULL OR body_dropped_at IS NOT NULL)',
)
@Check(
  'email_messages_source_check',
  '((source IS NULL) = (source_id IS NULL) AND (source IS NULL) = (source_item_id IS NULL))',
)
@Entity('email_messages')
@Index('email_messages_site_id_id_idx', ['siteId', 'id'])
@Index('email_messages_site_id_status_id_idx', ['siteId', 'status', 'id'])
@Index('email_messages_batch_id_idx', ['batchId'])
@Index('email_messages_unsent_idx', ['id'], { where: "status IN ('queued', 'sending')" })
// A provider's bounce event names its message by Message-ID (docs/deliverability.md).
@Index('email_messages_smtp_message_id_idx', ['smtpMessageId'], { where: 'smtp_message_id IS NOT NULL' })
// The recovery sweep: messages a stopped sender claimed (email-delivery.job.ts).
@Index('email_messages_sending_idx', ['claimedAt'], { where: `"status" = 'sending'` })
// The body retention: copies whose body is kept, oldest first (campaign copies have none).
@Index('email_messages_body_kept_idx', ['createdAt'], { where: 'html IS NOT NULL' })
export class EmailMessageEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @Column({ type: 'uuid' }) batchId: string;
  /** The address this copy is delivered to (the SMTP envelope). */
  @Column({ type: 'text' }) recipient: string;
  @Column({ type: 'text' }) recipientKind: RecipientKind;
  @Column({ type: 'text' }) fromHeader: string;
  @Column({ type: 'text', nullable: true }) replyTo: string | null;
  /** The To and Cc headers every copy of the mail shows (Bcc is never shown). */
  @Column({ type: 'text' }) toHeader: string;
  @Column({ type: 'text', nullable: true }) ccHeader: string | null;
  @Column({ type: 'text' }) subject: string;
  /** Null: a campaign copy (rendered from its source) or a body dropped after its window. */
  @Column({ type: 'text', nullable: true }) html: string | null;
  @Column({ type: 'text', nullable: true }) text: string | null;
  /**
   * Where a copy stored without a body gets it (mail-sources.ts): a source's name
   * (`newsletter.campaign`), its id (the campaign's) and its item's (the subscription's).
   */
  @Column({ type: 'text', nullable: true }) source: string | null;
  @RefColumn({ nullable: true }) sourceId: number | null;
  @RefColumn({ nullable: true }) sourceItemId: number | null;
  /** When the maintenance job dropped the body (EMAIL_BODY_RETENTION_DAYS after it was recorded). */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) bodyDroppedAt: Date | null;
  @RefColumn({ nullable: true }) templateId: number | null;
  @Column({ type: 'text', nullable: true }) templateType: string | null;
  @Column({ type: 'text', array: true, default: () => "'{}'" }) tags: string[];
  /** Headers of this copy beside the standard ones (e.g. List-Unsubscribe of a campaign mail). */
  @Column({ type: 'jsonb', nullable: true }) extraHeaders: Record<string, string> | null;
  /**
   * The secret values its subject, parts and headers show as `[redacted:<name>]` (a code, a link's
   * token), sealed (mail-secrets.ts); null once it is sent or failed, or when it has none. No read
   * selects it but the delivery job's.
   */
  @Column({ type: 'text', nullable: true, select: false }) sealedSecrets: string | null;
  @Column({ type: 'text', default: 'queued' }) status: MessageStatus;
  @Column({ type: 'integer', default: 0 }) attempts: number;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) claimedAt: Date | null;
  @Column({ type: 'text', nullable: true }) smtpMessageId: string | null;
  @Column({ type: 'text', nullable: true }) smtpResponse: string | null;
  @Column({ type: 'text', nullable: true }) error: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) sentAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) failedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
