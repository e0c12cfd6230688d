import type { Tenant } from './tenant';

/** Products and orders made through the API: the orders tests and those of modules built on them (subscriptions). */

export const ordersUrl = (x: Tenant, rest = '') => `/api/v2/sites/${x.siteName}/orders${rest}`;

export interface Made {
  id: number;
  [key: string]: unknown;
}

/** A published product (EUR 10.00, unlimited stock, no tax unless `body` says otherwise). */
export async function makeProduct(x: Tenant, body: Record<string, unknown> = {}): Promise<Made> {
  const res = await x.api
    .post(`/api/v2/sites/${x.siteName}/products`)
    .send({ name: 'Mug', unitAmount: 1000, currency: 'EUR', ...body });
  if (res.status !== 201) throw new Error(`makeProduct: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Made;
}

/** A variant of a product; answers the variant. */
export async function makeVariant(x: Tenant, productId: number, body: Record<string, unknown>): Promise<Made> {
  const res = await x.api.post(`/api/v2/sites/${x.siteName}/products/${productId}/variants`).send(body);
  if (res.status !== 201) throw new Error(`makeVariant: ${res.status} ${JSON.stringify(res.body)}`);
  const variants = res.body.variants as Made[];
  return variants[variants.length - 1];
}

export const customer = { email: 'Ada@Example.com', name: 'Ada Lovelace' };

/** An order body of these lines (`[productId, quantity]`), for Ada. */
export const orderBody = (lines: Array<[number, number]>, extra: Record<string, unknown> = {}) => ({
  lines: lines.map(([productId, quantity]) => ({ productId, quantity })),
  customer,
  ...extra,
});

/** Places an order; answers its body. */
export async function makeOrder(
  x: Tenant,
  lines: Array<[number, number]>,
  extra: Record<string, unknown> = {},
): Promise<Made & { number: number; lines: Made[] }> {
  const res = await x.api.post(ordersUrl(x)).send(orderBody(lines, extra));
  if (res.status !== 201) throw new Error(`makeOrder: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Made & { number: number; lines: Made[] };
}
