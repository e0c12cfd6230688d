import { Column, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';
import type { WebhookErrorKind } from '../webhook-sender';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';

/** One HTTP attempt of a delivery: what the endpoint answered, or why it could not. */
@Entity('webhook_attempts')
@Index('webhook_attempts_delivery_id_id_idx', ['deliveryId', 'id'])
export class WebhookAttemptEntity {
  @IdColumn() id: number;
  @RefColumn() deliveryId: number;
  @ManyToOne(() => WebhookDeliveryEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'delivery_id' })
  delivery?: WebhookDeliveryEntity;
  @Column({ type: 'timestamptz', precision: 3 }) attemptedAt: Date;
  @Column({ type: 'integer', nullable: true }) statusCode: number | null;
  @Column({ type: 'integer' }) durationMs: number;
  @Column({ type: 'text', default: '' }) responseExcerpt: string;
  @Column({ type: 'text', nullable: true }) errorKind: WebhookErrorKind | null;
  @Column({ type: 'text', nullable: true }) error: string | null;
}
