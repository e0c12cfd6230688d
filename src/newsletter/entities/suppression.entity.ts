import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { idTransformer } from '../../database/id.transformer';

/**
 * An address the site must never add again by import, sync or bulk: kept as a SHA-256 of the
 * normalised address only (a deleted subscriber's data is gone; the hash stops a re-import).
 */
@Entity('newsletter_suppressions')
export class SuppressionEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  /** hex SHA-256 of the lower-cased address. */
  @PrimaryColumn({ type: 'text' }) emailHash: string;
  /** `deleted`, `blocklist`. */
  @Column({ type: 'text' }) reason: string;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
