import { EntityManager } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { OutboxEventEntity } from './outbox-event.entity';

export interface EventScope {
  accountId: number;
  /** Absent for account-level events (e.g. account deletion). */
  id?: number | null;
}

/**
 * Writes a domain event to the outbox inside the caller's transaction (API.md §6): it is
 * published if and only if the change commits. Names are dot-separated and past tense.
 */
export async function recordEvent(
  em: EntityManager,
  scope: EventScope,
  name: string,
  payload: Record<string, unknown>,
): Promise<void> {
  const row = {
    accountId: scope.accountId,
    siteId: scope.id ?? null,
    name,
    payload,
  } as QueryDeepPartialEntity<OutboxEventEntity>;
  await em.insert(OutboxEventEntity, row);
}
