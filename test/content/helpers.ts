import { OutboxEventEntity } from '../../src/common/outbox/outbox-event.entity';
import { startApp, TestApp } from '../support/app';
import { Tenant } from '../support/tenant';

/** Public reads are rate limited per IP; tests make many from one address. */
export function startContentApp(): Promise<TestApp> {
  return startApp({ env: { RATE_LIMIT_PUBLIC_MAX: '100000' } });
}

export const contentUrl = (tenant: Tenant, rest = '') => `/api/v2/sites/${tenant.siteName}/content${rest}`;

/** Creates an item through the API and returns its body. */
export async function makeContent(
  tenant: Tenant,
  body: Record<string, unknown> = {},
): Promise<{ id: number; slug: string; version: number } & Record<string, unknown>> {
  const res = await tenant.api.post(contentUrl(tenant)).send({ title: 'An item', ...body });
  if (res.status !== 201) throw new Error(`makeContent: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The names and payloads of a site's outbox events since `afterId`. */
export async function eventsOf(
  t: TestApp,
  tenant: Tenant,
  afterId = 0,
): Promise<Array<{ name: string; payload: Record<string, unknown> }>> {
  const rows = await t.db
    .getRepository(OutboxEventEntity)
    .createQueryBuilder('e')
    .where('e.site_id = :siteId AND e.id > :afterId', { siteId: tenant.siteId, afterId })
    .orderBy('e.id')
    .getMany();
  return rows.map((r) => ({ name: r.name, payload: r.payload }));
}

export async function lastEventId(t: TestApp): Promise<number> {
  const [row] = await t.db.query('SELECT COALESCE(MAX(id), 0)::bigint AS id FROM outbox_events');
  return Number(row.id);
}
