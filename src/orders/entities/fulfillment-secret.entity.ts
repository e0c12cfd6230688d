import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { idTransformer } from '../../database/id.transformer';

/**
 * The secret a site's fulfillment provider signs notifications with (docs/orders.md). Kept as
 * is (verifying needs it) and never in a response but the rotation's; not in site responses.
 */
@Entity('order_fulfillment_secrets')
export class FulfillmentSecretEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @Column({ type: 'text' }) secret: string;
  /** The secret before the last rotation: it verifies too until previousSecretExpiresAt. */
  @Column({ type: 'text', nullable: true }) previousSecret: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) previousSecretExpiresAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
