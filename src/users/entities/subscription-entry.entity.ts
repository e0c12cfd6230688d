import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';
import { idTransformer } from '../../database/id.transformer';
import { UserSubscriptionEntity } from './user-subscription.entity';

export const SUBSCRIPTION_ENTRY_KINDS = ['charge', 'renewal', 'proration'] as const;
export type SubscriptionEntryKind = (typeof SUBSCRIPTION_ENTRY_KINDS)[number];
export const SUBSCRIPTION_ENTRY_STATUSES = ['pending', 'paid', 'recorded'] as const;
export type SubscriptionEntryStatus = (typeof SUBSCRIPTION_ENTRY_STATUSES)[number];

/**
 * One line of a subscription's ledger (docs/users.md): a charge (asked for by the site, or a
 * renewal at a period's end), `pending` for the processor or `paid` (from credits or by the
 * processor); or a proration of a plan change, `recorded` only: Sitebase never charges it.
 */
@Entity('user_subscription_entries')
@Index('user_subscription_entries_subscription_id_id_idx', ['subscriptionId', 'id'])
@Index('user_subscription_entries_site_id_idx', ['siteId'])
export class SubscriptionEntryEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @RefColumn() subscriptionId: number;
  @ManyToOne(() => UserSubscriptionEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'subscription_id' })
  subscription?: UserSubscriptionEntity;
  @Column({ type: 'text' }) kind: SubscriptionEntryKind;
  /** Minor units; signed for prorations (negative: owed to the customer). */
  @Column({ type: 'bigint', transformer: idTransformer }) amount: number;
  @Column({ type: 'text' }) currency: string;
  @Column({ type: 'text', default: '' }) description: string;
  @Column({ type: 'text' }) status: SubscriptionEntryStatus;
  /** `credits` when paid from the user's credits; else the processor's name once it paid. */
  @Column({ type: 'text', nullable: true }) paidWith: string | null;
  @RefColumn({ nullable: true }) creditEntryId: number | null;
  @Column({ type: 'text', nullable: true }) processorChargeId: string | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) paidAt: Date | null;
}
