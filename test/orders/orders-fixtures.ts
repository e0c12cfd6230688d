import request from 'supertest';
import type { TestApp } from '../support/app';
import type { Tenant } from '../support/tenant';
import { signatureHeader } from '../../src/orders/fulfillment-signature';

/** What the orders tests share: products made through the API, order bodies, signed notifications. */

export { customer, makeOrder, makeProduct, makeVariant, orderBody, ordersUrl } from '../support/commerce';
export type { Made } from '../support/commerce';
import { ordersUrl } from '../support/commerce';

/** The site's fulfillment secret, made (or rotated) through the admin route. */
export async function rotateSecret(x: Tenant): Promise<string> {
  const res = await x.api.post(ordersUrl(x, '/fulfillment-secret'));
  if (res.status !== 200) throw new Error(`rotateSecret: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.secret as string;
}

/** POSTs a notification anonymously, signed with `secret` at `at` (Unix seconds; now by default). */
export function notify(
  t: TestApp,
  x: Tenant,
  body: Record<string, unknown> | string,
  secret: string | null,
  at = Math.floor(Date.now() / 1000),
): request.Test {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const req = request(t.server)
    .post(ordersUrl(x, '/fulfillment-notifications'))
    .set('content-type', 'application/json');
  return (secret === null ? req : req.set('x-sitebase-signature', signatureHeader(secret, at, text))).send(text);
}
