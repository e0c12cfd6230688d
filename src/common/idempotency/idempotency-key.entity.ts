import { Column, CreateDateColumn, Entity, Index } from 'typeorm';
import { IdColumn } from '../../database/columns';

/** A stored response for an `Idempotency-Key`, replayed for IDEMPOTENCY_TTL_SECONDS. */
@Entity('idempotency_keys')
@Index('idempotency_keys_scope_key_key', ['scope', 'key'], { unique: true })
@Index('idempotency_keys_created_at_idx', ['createdAt'])
export class IdempotencyKeyEntity {
  @IdColumn() id: number;
  /** Whose key it is: `account:<id>` or `user:<id>`, so two callers never share a key space. */
  @Column({ type: 'text' }) scope: string;
  /** idempotencyKeyHash(scope, Idempotency-Key): the key itself opens the stored body, so it is not kept. */
  @Column({ type: 'text' }) key: string;
  @Column({ type: 'text' }) method: string;
  @Column({ type: 'text' }) path: string;
  /** SHA-256 of method, path and canonical body: the same key with another body is a 409. */
  @Column({ type: 'text' }) requestHash: string;
  @Column({ type: 'text', default: 'processing' }) state: 'processing' | 'completed';
  @Column({ type: 'int', nullable: true }) responseStatus: number | null;
  /** sealBody() of the response: it may carry a secret shown once (a new API key). */
  @Column({ type: 'jsonb', nullable: true }) responseBody: unknown;
  @Column({ type: 'jsonb', nullable: true }) responseHeaders: Record<string, string> | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
