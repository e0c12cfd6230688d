import request from 'supertest';
import { TestApp } from '../support/app';
import { recipientCopies } from '../support/mail-copies';
import { nl } from '../support/newsletter';
import { Tenant } from '../support/tenant';

export { makeList, nl } from '../support/newsletter';

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
