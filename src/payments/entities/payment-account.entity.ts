import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { idTransformer } from '../../database/id.transformer';

export const PAYMENT_MODES = ['test', 'live'] as const;
export type PaymentMode = (typeof PAYMENT_MODES)[number];

/**
 * A site's connection to Stripe (docs/payments.md): per mode its secret key and webhook signing
 * secret, sealed (SecretsBox, bound to the site, mode and field), and a hint of the key
 * (`sk_test_…4242`) for people. `mode` is the one the site charges in; products sync to both.
 */
@Check('payment_accounts_live_check', `((live_secret_key IS NULL) = (live_webhook_secret IS NULL))`)
@Check('payment_accounts_mode_check', `(mode = ANY (ARRAY['test'::text, 'live'::text]))`)
@Check(
  'payment_accounts_mode_keys_check',
  `(((mode = 'test'::text) AND (test_secret_key IS NOT NULL)) OR ((mode = 'live'::text) AND (live_secret_key IS NOT NULL)))`,
)
@Check('payment_accounts_processor_check', `(processor = 'stripe'::text)`)
@Check('payment_accounts_test_check', `((test_secret_key IS NULL) = (test_webhook_secret IS NULL))`)
@Entity('payment_accounts')
export class PaymentAccountEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @Column({ type: 'text', default: 'stripe' }) processor: 'stripe';
  @Column({ type: 'text' }) mode: PaymentMode;
  @Column({ type: 'text', nullable: true }) testSecretKey: string | null;
  @Column({ type: 'text', nullable: true }) testWebhookSecret: string | null;
  @Column({ type: 'text', nullable: true }) testKeyHint: string | null;
  @Column({ type: 'text', nullable: true }) liveSecretKey: string | null;
  @Column({ type: 'text', nullable: true }) liveWebhookSecret: string | null;
  @Column({ type: 'text', nullable: true }) liveKeyHint: string | null;
  @Column({ type: 'integer', default: 1 }) version: number;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
