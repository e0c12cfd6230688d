import { Column, CreateDateColumn, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { idTransformer } from '../../database/id.transformer';

/** The secret that signs a site's confirmation and preferences links, made on first use. */
@Entity('newsletter_signing_keys')
export class SigningKeyEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) siteId: number;
  @OneToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  @Column({ type: 'bytea' }) secret: Buffer;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
