import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';

export const USER_STATUSES = ['active', 'disabled'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

/** A person who signs in to a site by one-time password (docs/users.md). */
@Check('site_users_status_check', `(status = ANY (ARRAY['active'::text, 'disabled'::text]))`)
@Entity('site_users')
@Index('site_users_site_id_email_key', ['siteId', 'email'], { unique: true })
@Index('site_users_site_id_created_at_id_idx', ['siteId', 'createdAt', 'id'])
export class SiteUserEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  /** Normalised: trimmed and lower-case. */
  @Column({ type: 'text' }) email: string;
  @Column({ type: 'text', default: '' }) name: string;
  @Column({ type: 'text', default: 'active' }) status: UserStatus;
  @Column({ type: 'jsonb', default: () => "'{}'" }) metadata: Record<string, unknown>;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) emailVerifiedAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) lastSignInAt: Date | null;
  /** Set while the user's erasure waits for its grace period: the user may only read and cancel. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) deletionScheduledAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
