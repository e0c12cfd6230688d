import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';
import type { PaymentMode } from './payment-account.entity';

/**
 * A Stripe event a site received and verified (docs/payments.md, "Events"): claimed by its id
 * in the transaction that applies it, so a redelivery finds the row and changes nothing.
 * `ignored`: a type Sitebase does not act on, or an object that is not Sitebase's.
 */
@Check('payment_events_mode_check', `(mode = ANY (ARRAY['test'::text, 'live'::text]))`)
@Check('payment_events_outcome_check', `(outcome = ANY (ARRAY['applied'::text, 'ignored'::text]))`)
@Entity('payment_events')
@Index('payment_events_site_id_processor_event_id_key', ['siteId', 'processor', 'eventId'], { unique: true })
// Retention (PAYMENT_EVENT_RETENTION_DAYS): the oldest first.
@Index('payment_events_received_at_idx', ['receivedAt'])
export class PaymentEventEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @Column({ type: 'text', default: 'stripe' }) processor: 'stripe';
  @Column({ type: 'text' }) eventId: string;
  @Column({ type: 'text' }) mode: PaymentMode;
  @Column({ type: 'text' }) type: string;
  @Column({ type: 'text', nullable: true }) objectId: string | null;
  @Column({ type: 'text' }) outcome: 'applied' | 'ignored';
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) receivedAt: Date;
}
