import request from 'supertest';
import { TestApp } from '../support/app';
import { recipientCopies } from '../support/mail-copies';
import { Tenant } from '../support/tenant';

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

/** A public subscribe, as a signup form sends it (no key). */
export function subscribe(t: TestApp, x: Tenant, body: Record<string, unknown>): request.Test {
  return request(t.server).post(nl(x, '/subscribe')).send(body);
}

/**
 * The link tokens in the HTML the address was mailed (confirm, preferences), newest message first:
 * the stored copies filled in with their sealed values, as the recipient gets them.
 */
export async function linksMailedTo(
  t: TestApp,
  x: Tenant,
  email: string,
): Promise<{ confirm?: string; manage?: string }> {
  const rows = await recipientCopies(t, 'site_id = $1 AND recipient = $2', [x.siteId, email]);
  const out: { confirm?: string; manage?: string } = {};
  for (const { html } of rows) {
    out.confirm ??= /newsletter\/confirm\/([^"?\s]+)/.exec(html)?.[1];
    out.manage ??= /newsletter\/preferences\/([^"?\s]+)/.exec(html)?.[1];
  }
  return out;
}
