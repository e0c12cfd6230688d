import { Column, CreateDateColumn, Entity, Index } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';

/** A domain event, written in the same transaction as the change it describes. */
@Entity('outbox_events')
@Index('outbox_events_pending_idx', ['id'], { where: 'dispatched_at IS NULL AND parked_at IS NULL' })
@Index('outbox_events_parked_idx', ['id'], { where: 'parked_at IS NOT NULL' })
// Retention (OUTBOX_RETENTION_DAYS): the oldest dispatched events first.
@Index('outbox_events_dispatched_at_idx', ['dispatchedAt'], { where: 'dispatched_at IS NOT NULL' })
@Index('outbox_events_site_id_id_idx', ['siteId', 'id'])
// Account deletion previews and removes an account's events (some have no site).
@Index('outbox_events_account_id_id_idx', ['accountId', 'id'])
export class OutboxEventEntity {
  @IdColumn() id: number;
  @RefColumn() accountId: number;
  @RefColumn({ nullable: true }) siteId: number | null;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'jsonb' }) payload: Record<string, unknown>;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @Column({ type: 'timestamptz', nullable: true }) dispatchedAt: Date | null;
  /** Failed deliveries to subscribers so far; the event is retried with backoff until it is parked. */
  @Column({ type: 'int', default: 0 }) attempts: number;
  @Column({ type: 'timestamptz', nullable: true }) nextAttemptAt: Date | null;
  /** The last failure's error class and message (SQLSTATE only for database errors); operators only. */
  @Column({ type: 'text', nullable: true }) lastError: string | null;
  /** Set when the relay stopped retrying after OUTBOX_MAX_ATTEMPTS; cleared by an operator's re-drive. */
  @Column({ type: 'timestamptz', nullable: true }) parkedAt: Date | null;
}
