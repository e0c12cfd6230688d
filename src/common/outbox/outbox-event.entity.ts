import { Column, CreateDateColumn, Entity, Index } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';

/** A domain event, written in the same transaction as the change it describes (API.md §6). */
@Entity('outbox_events')
@Index('outbox_events_pending_idx', ['id'], { where: 'dispatched_at IS NULL' })
@Index('outbox_events_site_id_id_idx', ['siteId', 'id'])
export class OutboxEventEntity {
  @IdColumn() id: number;
  @RefColumn() accountId: number;
  @RefColumn({ nullable: true }) siteId: number | null;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'jsonb' }) payload: Record<string, unknown>;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @Column({ type: 'timestamptz', nullable: true }) dispatchedAt: Date | null;
}
