import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { idTransformer } from '../../database/id.transformer';
import { RefColumn } from '../../database/columns';
import { NewsletterListEntity } from './newsletter-list.entity';
import { SubscriptionEntity } from './subscription.entity';

export const MEMBERSHIP_STATUSES = ['pending', 'active', 'unsubscribed'] as const;
export type MembershipStatus = (typeof MEMBERSHIP_STATUSES)[number];

/** One address on one list, with where it stands there (membership-status.ts has the moves). */
@Entity('newsletter_memberships')
// A list's members by status, newest first: the `listId` filter and the list counts.
@Index('newsletter_memberships_list_id_status_subscription_id_idx', ['listId', 'status', 'subscriptionId'])
// A list's members of any status, newest first.
@Index('newsletter_memberships_list_id_subscription_id_idx', ['listId', 'subscriptionId'])
// The series enrollment sweep: who became active on a list lately (docs/newsletter.md, "Series").
@Index('newsletter_memberships_list_id_subscribed_at_idx', ['listId', 'subscribedAt'], { where: `"status" = 'active'` })
@Check('newsletter_memberships_status_check', `"status" IN ('pending', 'active', 'unsubscribed')`)
export class MembershipEntity {
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) subscriptionId: number;
  @PrimaryColumn({ type: 'bigint', transformer: idTransformer }) listId: number;
  @ManyToOne(() => SubscriptionEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'subscription_id' })
  subscription?: SubscriptionEntity;
  @ManyToOne(() => NewsletterListEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'list_id' })
  list?: NewsletterListEntity;
  @RefColumn() siteId: number;
  @Column({ type: 'text' }) status: MembershipStatus;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) subscribedAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) unsubscribedAt: Date | null;
  @Column({ type: 'text', nullable: true }) reason: string | null;
  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
