import type { Test } from 'supertest';
import { Tenant } from './tenant';

/** Resources made through the API, as a client would: each answers the created body or throws. */

export const contentUrl = (tenant: Tenant, rest = '') => `/api/v2/sites/${tenant.siteName}/content${rest}`;
export const collectionsUrl = (tenant: Tenant, rest = '') => `/api/v2/sites/${tenant.siteName}/collections${rest}`;

type Made<T> = T & Record<string, unknown>;

async function created<T>(what: string, request: Test): Promise<Made<T>> {
  const res = await request;
  if (res.status !== 201) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Made<T>;
}

/** A content item (a draft post unless `body` says otherwise). */
export function makeContent(
  tenant: Tenant,
  body: Record<string, unknown> = {},
): Promise<Made<{ id: number; slug: string; version: number }>> {
  return created('makeContent', tenant.api.post(contentUrl(tenant)).send({ title: 'An item', ...body }));
}

/** A collection. */
export function makeCollection(
  tenant: Tenant,
  body: Record<string, unknown> = {},
): Promise<Made<{ id: number; slug: string }>> {
  return created('makeCollection', tenant.api.post(collectionsUrl(tenant)).send({ name: 'A collection', ...body }));
}
