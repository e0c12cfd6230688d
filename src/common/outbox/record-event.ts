import { EntityManager } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { DomainEvent, isDeclared } from './events';
import { OutboxEventEntity } from './outbox-event.entity';

export interface EventScope {
  accountId: number;
  /** Absent for account-level events (e.g. account deletion). */
  id?: number | null;
}

/**
 * Writes a domain event to the outbox inside the caller's transaction: it is
 * published if and only if the change commits. The event must be one its module declared in
 * its `<module>.events.ts` (defineEvents); anything else is a programming error and throws.
 */
export async function recordEvent<P extends object>(
  em: EntityManager,
  scope: EventScope,
  event: DomainEvent<P>,
  payload: P,
): Promise<void> {
  if (!isDeclared(event)) throw new Error(`Event ${event.name} is not declared in a module's events file`);
  const row = {
    accountId: scope.accountId,
    siteId: scope.id ?? null,
    name: event.name,
    payload,
  } as QueryDeepPartialEntity<OutboxEventEntity>;
  await em.insert(OutboxEventEntity, row);
}
