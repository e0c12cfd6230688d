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
import { idTransformer } from '../../database/id.transformer';
import type { PaymentMode } from './payment-account.entity';

/**
 * A site user's Stripe Customer in one mode (docs/payments.md, "Subscriptions"), made with their
 * first payment through Stripe, and the payment method that payment saved for off-session charges
 * (renewals, prorations). Deleted with the user (their Stripe Customer stays in Stripe).
 */
@Check('payment_customers_mode_check', `(mode = ANY (ARRAY['test'::text, 'live'::text]))`)
@ForeignKey('site_users', ['user_id'], ['id'], { onDelete: 'CASCADE' })
@Entity('payment_customers')
@Index('payment_customers_site_id_mode_customer_id_key', ['siteId', 'mode', 'customerId'], { unique: true })
export class PaymentCustomerEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) userId: number;
  @PrimaryColumn({ type: 'text' }) mode: PaymentMode;
  @Column({ type: 'text' }) customerId: string;
  @Column({ type: 'text', nullable: true }) paymentMethodId: string | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
