import { EntityManager } from 'typeorm';
import { sql } from '../../database/sql';
import { OutboxEventEntity } from './outbox-event.entity';
import type { Charged, Claimed } from './outbox-retries';

/**
 * The relay's statements over `outbox_events` (docs/modules.md), each in the transaction it is
 * given: claims, the savepoint each event is delivered in, and the bookkeeping of attempts.
 */
export class OutboxRepository {
  /**
   * Locks the next `limit` events due (pending, not parked, their retry come), or those of `only`,
   * in id order; events another instance holds are skipped.
   */
  claim(em: EntityManager, now: Date, limit: number, only?: number[]): Promise<OutboxEventEntity[]> {
    const query = em
      .createQueryBuilder(OutboxEventEntity, 'e')
      .where('e.dispatched_at IS NULL AND e.parked_at IS NULL')
      .andWhere('(e.next_attempt_at IS NULL OR e.next_attempt_at <= :now)', { now });
    if (only) query.andWhere('e.id IN (:...only)', { only });
    return query.orderBy('e.id', 'ASC').limit(limit).setLock('pessimistic_write').setOnLocked('skip_locked').getMany();
  }

  /** Of these events, those still pending and not in another instance's batch, locked. */
  async lockPending(em: EntityManager, ids: number[]): Promise<Claimed[]> {
    const { rows } = await sql<Claimed>(
      em,
      `SELECT id, name, attempts FROM outbox_events
          WHERE id = ANY($1) AND dispatched_at IS NULL AND parked_at IS NULL
          FOR UPDATE SKIP LOCKED`,
      [ids],
      { bigints: ['id'] },
    );
    return rows;
  }

  /** Writes each event's failed attempt: its count, the error, its retry time or its parking. */
  async recordFailures(em: EntityManager, charged: Charged[], error: string, now: Date): Promise<void> {
    await sql(
      em,
      `UPDATE outbox_events AS e
          SET attempts = f.attempts, last_error = $2, next_attempt_at = f.retry_at,
              parked_at = CASE WHEN f.parked THEN $3::timestamptz END
         FROM unnest($1::bigint[], $4::int[], $5::timestamptz[], $6::boolean[]) AS f(id, attempts, retry_at, parked)
        WHERE e.id = f.id`,
      [
        charged.map((e) => e.id),
        error,
        now,
        charged.map((e) => e.attempts),
        charged.map((e) => e.retryAt),
        charged.map((e) => e.parked),
      ],
    );
  }

  /** Opens the savepoint one event is delivered in. */
  async openEventSavepoint(em: EntityManager): Promise<void> {
    await sql(em, 'SAVEPOINT outbox_event');
  }

  async releaseEventSavepoint(em: EntityManager): Promise<void> {
    await sql(em, 'RELEASE SAVEPOINT outbox_event');
  }

  /** Undoes what the event's subscribers did; the batch goes on. */
  async rollbackEventSavepoint(em: EntityManager): Promise<void> {
    await sql(em, 'ROLLBACK TO SAVEPOINT outbox_event');
  }

  async markDispatched(em: EntityManager, ids: number[]): Promise<void> {
    await sql(em, 'UPDATE outbox_events SET dispatched_at = now() WHERE id = ANY($1)', [ids]);
  }
}
