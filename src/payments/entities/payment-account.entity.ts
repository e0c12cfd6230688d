import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { idTransformer } from '../../database/id.transformer';

export const PAYMENT_MODES = ['test', 'live'] as const;
export type PaymentMode = (typeof PAYMENT_MODES)[number];

/**
 * A site's connection to Stripe (docs/payments.md): per mode its secret key and webhook signing
 * secret, sealed (SecretsBox, bound to the site, mode and field), and a hint of the key
 * (`sk_test_…4242`) for people. `mode` is the one the site charges in; products sync to both.
 */
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
