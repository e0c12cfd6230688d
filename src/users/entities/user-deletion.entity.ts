import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';

export const USER_DELETION_STATUSES = ['scheduled', 'canceled', 'erasing', 'completed'] as const;
export type UserDeletionStatus = (typeof USER_DELETION_STATUSES)[number];

/**
 * A site user's erasure request. It outlives the user, as the record that the
 * erasure happened: it holds the user's id, never their address or name.
 */
@Check(
  'user_deletions_status_check',
  `(status = ANY (ARRAY['scheduled'::text, 'canceled'::text, 'erasing'::text, 'completed'::text]))`,
)
@Entity('user_deletions')
@Index('user_deletions_user_id_id_idx', ['userId', 'id'])
// Outlives the user it erased: account deletion finds it by site.
@Index('user_deletions_site_id_id_idx', ['siteId', 'id'])
export class UserDeletionEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  /** No foreign key: the user row is erased, the request stays. */
  @RefColumn() userId: number;
  @Column({ type: 'text', default: 'scheduled' }) status: UserDeletionStatus;
  @Column({ type: 'timestamptz', precision: 3 }) purgeAfter: Date;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) requestedAt: Date;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) canceledAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) completedAt: Date | null;
  /** Counts per resource of what the erasure removed or anonymised. */
  @Column({ type: 'jsonb', nullable: true }) summary: Record<string, number> | null;
}
