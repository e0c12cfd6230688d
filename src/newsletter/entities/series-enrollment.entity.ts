import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';
import { SeriesEntity } from './series.entity';
import { SubscriptionEntity } from './subscription.entity';

export const ENROLLMENT_STATUSES = ['active', 'completed', 'stopped'] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];

/**
 * One person in one series, once (unique per series and subscription): where they are
 * (`nextStepId`, due at `nextDueAt`) and whether they still receive it.
 */
@Entity('newsletter_series_enrollments')
@Index('newsletter_series_enrollments_series_id_subscription_id_key', ['seriesId', 'subscriptionId'], {
  unique: true,
})
// The due-steps sweep: the active enrollments by due time.
@Index('newsletter_series_enrollments_next_due_at_idx', ['nextDueAt'], { where: `"status" = 'active'` })
// A subscription's enrollments (the cascade of its deletion).
@Index('newsletter_series_enrollments_subscription_id_idx', ['subscriptionId'])
@Check('newsletter_series_enrollments_status_check', `"status" IN ('active', 'completed', 'stopped')`)
export class SeriesEnrollmentEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @RefColumn() seriesId: number;
  @ManyToOne(() => SeriesEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'series_id' })
  series?: SeriesEntity;
  @RefColumn() subscriptionId: number;
  @ManyToOne(() => SubscriptionEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'subscription_id' })
  subscription?: SubscriptionEntity;
  @Column({ type: 'text', default: 'active' }) status: EnrollmentStatus;
  /** When the person became active on a trigger list: the first step's delay counts from here. */
  @Column({ type: 'timestamptz', precision: 3 }) enrolledAt: Date;
  @RefColumn({ nullable: true }) nextStepId: number | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) nextDueAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) lastSentAt: Date | null;
  @Column({ type: 'integer', default: 0 }) stepsSent: number;
  /** `unsubscribed` (left every trigger list) or `undeliverable`. */
  @Column({ type: 'text', nullable: true }) stoppedReason: string | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
