import { Column, CreateDateColumn, Entity, Index } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';

export type DeletionStatus = 'scheduled' | 'canceled' | 'purging' | 'completed';

/**
 * One request to delete an account. Kept (without a foreign key) after the account is purged,
 * as the record that the erasure happened.
 */
@Entity('account_deletions')
@Index('account_deletions_account_id_id_idx', ['accountId', 'id'])
export class AccountDeletionEntity {
  @IdColumn() id: number;
  @RefColumn() accountId: number;
  @Column({ type: 'text' }) status: DeletionStatus;
  @CreateDateColumn({ type: 'timestamptz' }) requestedAt: Date;
  @Column({ type: 'timestamptz' }) purgeAfter: Date;
  @Column({ type: 'timestamptz', nullable: true }) canceledAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) completedAt: Date | null;
  @RefColumn({ nullable: true }) requestedByKeyId: number | null;
  /** What the purge removed, per resource; filled when it completes. */
  @Column({ type: 'jsonb', nullable: true }) summary: Record<string, number> | null;
}
