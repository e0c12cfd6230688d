import { eventually } from './app';
import { Tenant } from './tenant';

/**
 * Newsletter resources made through the API as an operator makes them: what test folders other
 * than test/newsletter need of the newsletter (its own fixtures re-export these).
 */

/** `/api/v2/sites/<site>/newsletter<rest>`. */
export const nl = (x: Tenant, rest = '') => `/api/v2/sites/${x.siteName}/newsletter${rest}`;

/** A list made through the API, as an operator would. */
export async function makeList(
  x: Tenant,
  body: { name?: string; doubleOptIn?: boolean; visibility?: 'public' | 'private'; description?: string } = {},
): Promise<{ id: number; name: string }> {
  const res = await x.api
    .post(nl(x, '/lists'))
    .send({ name: 'Weekly digest', ...body })
    .expect(201);
  return res.body as { id: number; name: string };
}

/** A private list whose members are exactly these addresses, active with consent (no mail is sent). */
export async function listWith(x: Tenant, name: string, emails: string[]): Promise<number> {
  const list = await makeList(x, { name, doubleOptIn: false, visibility: 'private' });
  await x.api.post(nl(x, '/subscriptions/sync')).send({ listId: list.id, emails, consent: true }).expect(200);
  return list.id;
}

export async function makeCampaign(x: Tenant, body: Record<string, unknown>): Promise<{ id: number; slug: string }> {
  const res = await x.api
    .post(nl(x, '/campaigns'))
    .send({ name: 'Digest', subject: 'Hello {{ subscriber.name }}', ...body })
    .expect(201);
  return res.body as { id: number; slug: string };
}

/** Waits for a campaign's status. */
export function campaignReaches(x: Tenant, id: number, status: string, timeoutMs = 30000) {
  return eventually(async () => {
    const res = await x.api.get(nl(x, `/campaigns/${id}`)).expect(200);
    return res.body.status === status ? (res.body as Record<string, unknown>) : undefined;
  }, timeoutMs);
}
