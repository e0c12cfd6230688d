import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { IdColumn, RefColumn } from '../../../database/columns';
import { AccountEntity } from './account.entity';
import type { SiteSettings } from '../site-settings';

@Entity('sites')
@Index('sites_account_id_id_idx', ['accountId', 'id'])
export class SiteEntity {
  @IdColumn() id: number;
  @RefColumn() accountId: number;
  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;
  /** API.md §1: ^[a-z0-9][a-z0-9-]{0,62}$, unique across the installation. */
  @Index('sites_name_key', { unique: true }) @Column({ type: 'text' }) name: string;
  @Column({ type: 'text', default: '' }) title: string;
  /** Typed settings of the site's modules (site-settings.ts); absent keys use the configuration. */
  @Column({ type: 'jsonb', default: () => "'{}'" }) settings: SiteSettings;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
