import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';
import { idTransformer } from '../../database/id.transformer';
import type { RecurringInterval, SubscriptionStatus } from '../subscriptions/subscription-status';
import { SiteUserEntity } from './site-user.entity';

/**
 * A site user's subscription to a recurring product (docs/users.md): the plan (product, variant,
 * quantity and the price and interval it was taken at), its status and current period, and who
 * bills it (`processor`). Amounts are integers in minor units of `currency`.
 */
@Check('user_subscriptions_balance_check', `(balance >= 0)`)
@Check(
  'user_subscriptions_interval_check',
  `("interval" = ANY (ARRAY['day'::text, 'week'::text, 'month'::text, 'year'::text]))`,
)
@Check('user_subscriptions_processor_mode_check', `(processor_mode = ANY (ARRAY['test'::text, 'live'::text]))`)
@Check('user_subscriptions_quantity_check', `(quantity > 0)`)
@Check(
  'user_subscriptions_status_check',
  `(status = ANY (ARRAY['trialing'::text, 'active'::text, 'paused'::text, 'past_due'::text, 'canceled'::text]))`,
)
@Entity('user_subscriptions')
@Index('user_subscriptions_user_id_id_idx', ['userId', 'id'])
@Index('user_subscriptions_order_line_id_key', ['orderLineId'], {
  unique: true,
  where: 'order_line_id IS NOT NULL',
})
@Index('user_subscriptions_due_idx', ['currentPeriodEnd'], { where: "status IN ('trialing', 'active', 'past_due')" })
@Index('user_subscriptions_site_id_idx', ['siteId'])
@Index('user_subscriptions_unpaid_cancel_at_idx', ['unpaidCancelAt'], { where: "status = 'past_due'" })
export class UserSubscriptionEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @RefColumn() userId: number;
  @ManyToOne(() => SiteUserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: SiteUserEntity;
  @RefColumn() productId: number;
  @RefColumn({ nullable: true }) variantId: number | null;
  @Column({ type: 'integer', default: 1 }) quantity: number;
  @Column({ type: 'text' }) status: SubscriptionStatus;
  /** The price of one unit per period, as it was when the plan was taken or last changed. */
  @Column({ type: 'bigint', transformer: idTransformer }) unitAmount: number;
  @Column({ type: 'text' }) currency: string;
  @Column({ type: 'text' }) interval: RecurringInterval;
  @Column({ type: 'integer' }) intervalCount: number;
  @Column({ type: 'timestamptz', precision: 3 }) currentPeriodStart: Date;
  @Column({ type: 'timestamptz', precision: 3 }) currentPeriodEnd: Date;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) trialEndsAt: Date | null;
  /** Canceled at the end of the current period: the status stays until then. */
  @Column({ type: 'boolean', default: false }) cancelAtPeriodEnd: boolean;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) canceledAt: Date | null;
  @Column({ type: 'text', nullable: true }) cancelReason: string | null;
  /**
   * While `past_due`: when it is canceled (`unpaid`) unless its period charges are paid first,
   * the end of the site's dunning window from when it fell due, or of its period if sooner; null
   * in any other status.
   */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) unpaidCancelAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) pausedAt: Date | null;
  /** A paused subscription's resume date; null: until resumed. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) resumesAt: Date | null;
  /**
   * Minor units owed to the customer (credited prorations), spent on their next period charges
   * before the processor is asked; never negative.
   */
  @Column({ type: 'bigint', default: 0, transformer: idTransformer }) balance: number;
  @Column({ type: 'text', default: 'manual' }) processor: string;
  @Column({ type: 'text', nullable: true }) processorSubscriptionId: string | null;
  /** The Stripe mode its charges are made in (its order's); null for `manual`. */
  @Column({ type: 'text', nullable: true }) processorMode: 'test' | 'live' | null;
  /** The order (and its recurring line) that started it; null when an operator started it. */
  @RefColumn({ nullable: true }) orderId: number | null;
  @RefColumn({ nullable: true }) orderLineId: number | null;
  /** Bumped by every change: the resume job acts only on the pause it was queued for. */
  @Column({ type: 'integer', default: 1 }) version: number;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
