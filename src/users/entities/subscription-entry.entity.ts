import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';
import { idTransformer } from '../../database/id.transformer';
import { UserSubscriptionEntity } from './user-subscription.entity';

export const SUBSCRIPTION_ENTRY_KINDS = ['initial', 'renewal', 'proration', 'charge'] as const;
export type SubscriptionEntryKind = (typeof SUBSCRIPTION_ENTRY_KINDS)[number];
/** The lines that make up what the periods cost (an operator's ad-hoc `charge` is not one). */
export const PERIOD_ENTRY_KINDS = [
  'initial',
  'renewal',
  'proration',
] as const satisfies readonly SubscriptionEntryKind[];
export const SUBSCRIPTION_ENTRY_STATUSES = ['pending', 'paid', 'recorded'] as const;
export type SubscriptionEntryStatus = (typeof SUBSCRIPTION_ENTRY_STATUSES)[number];

/**
 * One line of a subscription's ledger (docs/users.md): every money movement is one. A period's
 * line (`initial`: the first, paid by its order; `renewal`: every later one), a `proration` of a
 * plan change (a negative one is `recorded` and credited to the balance; a positive one is
 * collected), or an operator's ad-hoc `charge`. Collected lines are `pending` until paid.
 */
@Check('user_subscription_entries_credit_applied_check', `(credit_applied >= 0)`)
@Check(
  'user_subscription_entries_kind_check',
  `(kind = ANY (ARRAY['initial'::text, 'renewal'::text, 'proration'::text, 'charge'::text]))`,
)
@Check(
  'user_subscription_entries_status_check',
  `(status = ANY (ARRAY['pending'::text, 'paid'::text, 'recorded'::text]))`,
)
@Entity('user_subscription_entries')
@Index('user_subscription_entries_subscription_id_id_idx', ['subscriptionId', 'id'])
@Index('user_subscription_entries_site_id_idx', ['siteId'])
@Index('user_subscription_entries_next_attempt_at_idx', ['nextAttemptAt'], {
  where: "status = 'pending' AND next_attempt_at IS NOT NULL",
})
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
  /**
   * How it was paid: `order` (a first period), `balance`, `credits`, `out_of_band` (settled
   * outside Sitebase, said by an operator) or the processor's name.
   */
  @Column({ type: 'text', nullable: true }) paidWith: string | null;
  /** The period this line starts (initial, renewal) or adjusts (proration); null for ad-hoc charges. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) periodStart: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) periodEnd: Date | null;
  /** The part of `amount` paid from the subscription's balance; the rest is what was asked of the processor. */
  @Column({ type: 'bigint', default: 0, transformer: idTransformer }) creditApplied: number;
  @RefColumn({ nullable: true }) creditEntryId: number | null;
  @Column({ type: 'text', nullable: true }) processorChargeId: string | null;
  /** The processor's attempts at it that failed (a declined card, no payment method); 0 before any. */
  @Column({ type: 'integer', default: 0 }) chargeAttempts: number;
  /** The last failed attempt: the processor's code (`card_declined`, `authentication_required`, ...), its message, when. */
  @Column({ type: 'text', nullable: true }) failureCode: string | null;
  @Column({ type: 'text', nullable: true }) failureMessage: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) failedAt: Date | null;
  /** When the period job asks the processor again (our retry schedule); null: no retry is planned. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) nextAttemptAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) paidAt: Date | null;
}
