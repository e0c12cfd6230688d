import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';
import { OrderEntity } from './order.entity';

/** One parcel of an order: its carrier, tracking and what it holds. */
@Entity('order_shipments')
@Index('order_shipments_order_id_id_idx', ['orderId', 'id'])
export class OrderShipmentEntity {
  @IdColumn() id: number;
  @RefColumn() orderId: number;
  @ManyToOne(() => OrderEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'order_id' })
  order?: OrderEntity;
  @RefColumn() siteId: number;
  @Column({ type: 'text' }) carrier: string;
  @Column({ type: 'text' }) trackingNumber: string;
  @Column({ type: 'text', nullable: true }) trackingUrl: string | null;
  /** Units of each line it holds. */
  @Column({ type: 'jsonb' }) lines: Array<{ lineId: number; quantity: number }>;
  /** The provider's notification that reported it; null when it came by PATCH …/fulfillment. */
  @Column({ type: 'text', nullable: true }) notificationId: string | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
