import { EntityManager, QueryDeepPartialEntity } from 'typeorm';
import { sql } from '../../database/sql';
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

/**
 * Writes many events of one kind and scope in one INSERT, in the order given (their ids follow
 * it), inside the caller's transaction: what a batch (a group of delivered mails) records.
 */
export async function recordEvents<P extends object>(
  em: EntityManager,
  scope: EventScope,
  event: DomainEvent<P>,
  payloads: P[],
): Promise<void> {
  if (!isDeclared(event)) throw new Error(`Event ${event.name} is not declared in a module's events file`);
  if (payloads.length === 0) return;
  await sql(
    em,
    `INSERT INTO outbox_events (account_id, site_id, name, payload)
     SELECT $1, $2, $3, u.payload FROM unnest($4::jsonb[]) WITH ORDINALITY AS u(payload, n) ORDER BY u.n`,
    [scope.accountId, scope.id ?? null, event.name, payloads.map((p) => JSON.stringify(p))],
  );
}
