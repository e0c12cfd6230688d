import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';
import type { WebhookErrorKind } from '../webhook-sender';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event for one endpoint (docs/webhooks.md): the exact body every attempt sends, and where
 * it stands. Its id gives the stable `webhook-id` (`msg_<id>`) receivers deduplicate on.
 */
@Check('webhook_deliveries_status_check', `(status = ANY (ARRAY['pending'::text, 'succeeded'::text, 'failed'::text]))`)
@Entity('webhook_deliveries')
@Index('webhook_deliveries_endpoint_id_id_idx', ['endpointId', 'id'])
@Index('webhook_deliveries_endpoint_id_event_id_key', ['endpointId', 'eventId'], { unique: true })
@Index('webhook_deliveries_endpoint_id_pending_idx', ['endpointId', 'id'], { where: "status = 'pending'" })
@Index('webhook_deliveries_pending_idx', ['nextAttemptAt'], { where: "status = 'pending'" })
// The log's retention (WEBHOOK_LOG_RETENTION_DAYS): the oldest finished deliveries first.
@Index('webhook_deliveries_finished_created_at_idx', ['createdAt'], { where: "status <> 'pending'" })
export class WebhookDeliveryEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @RefColumn() endpointId: number;
  @ManyToOne(() => WebhookEndpointEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id' })
  endpoint?: WebhookEndpointEntity;
  /** The outbox event; null for a test event. */
  @RefColumn({ nullable: true }) eventId: number | null;
  @Column({ type: 'text' }) eventType: string;
  /** The JSON envelope `{ type, timestamp, data }`, as sent. */
  @Column({ type: 'text' }) payload: string;
  @Column({ type: 'text', default: 'pending' }) status: DeliveryStatus;
  /** Attempts in the current round (a manual retry starts a new round). */
  @Column({ type: 'integer', default: 0 }) attempts: number;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) nextAttemptAt: Date | null;
  /** A pending delivery not delivered by then is given up (the retry window, about a day). */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) expiresAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) lastAttemptAt: Date | null;
  @Column({ type: 'integer', nullable: true }) lastStatusCode: number | null;
  @Column({ type: 'text', nullable: true }) lastErrorKind: WebhookErrorKind | null;
  @Column({ type: 'text', nullable: true }) lastError: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) deliveredAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
