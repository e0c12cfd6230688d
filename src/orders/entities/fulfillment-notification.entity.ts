import { Column, CreateDateColumn, Entity, ForeignKey, Index, JoinColumn, ManyToOne } from 'typeorm';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { IdColumn, RefColumn } from '../../database/columns';

/** What a notification's answer said, kept to answer a replay of its id the same way. */
export interface NotificationOutcome {
  id: string;
  orderId: number;
  fulfillmentStatus: string;
  shipmentId: number | null;
  receivedAt: string;
}

/** A provider's notification that was applied: its id is unique per site (a replay changes nothing). */
@ForeignKey('orders', ['order_id'], ['id'], { onDelete: 'CASCADE' })
@Entity('order_fulfillment_notifications')
@Index('order_fulfillment_notifications_site_id_notification_id_key', ['siteId', 'notificationId'], { unique: true })
export class FulfillmentNotificationEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @ManyToOne(() => SiteEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'site_id' })
  site?: SiteEntity;
  /** The provider's id of the notification. */
  @Column({ type: 'text' }) notificationId: string;
  @RefColumn() orderId: number;
  /** The answer it got; null only inside the transaction that applies it. */
  @Column({ type: 'jsonb', nullable: true }) outcome: NotificationOutcome | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) receivedAt: Date;
}
