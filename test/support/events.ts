import { OutboxEventEntity } from '../../src/common/outbox/outbox-event.entity';
import { sql } from '../../src/database/sql';
import { TestApp } from './app';

export interface RecordedEvent {
  name: string;
  payload: Record<string, unknown>;
}

/** The names and payloads of a site's outbox events after `afterId` (see lastEventId), oldest first. */
export async function eventsOf(t: TestApp, tenant: { siteId: number }, afterId = 0): Promise<RecordedEvent[]> {
  const rows = await t.db
    .getRepository(OutboxEventEntity)
    .createQueryBuilder('e')
    .where('e.site_id = :siteId AND e.id > :afterId', { siteId: tenant.siteId, afterId })
    .orderBy('e.id')
    .getMany();
  return rows.map((r) => ({ name: r.name, payload: r.payload }));
}

/** The newest outbox event id: take it before an action, then read eventsOf(t, site, id). */
export async function lastEventId(t: TestApp): Promise<number> {
  const { rows } = await sql<{ id: number }>(t.db, 'SELECT COALESCE(MAX(id), 0)::bigint AS id FROM outbox_events', [], {
    bigints: ['id'],
  });
  return rows[0].id;
}
