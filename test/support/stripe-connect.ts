import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import type { Tenant } from './tenant';

export interface StripeKeys {
  secretKey: string;
  webhookSecret: string;
}

const base62 = (n: number) =>
  [...randomBytes(n)].map((b) => '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'[b % 62]).join('');

/** Fresh keys of a mode, shaped as Stripe's (each tenant its own: the stand-in keeps objects per key's mode). */
export function stripeKeys(mode: 'test' | 'live' = 'test', kind: 'sk' | 'rk' = 'rk'): StripeKeys {
  return { secretKey: `${kind}_${mode}_${base62(24)}`, webhookSecret: `whsec_${base62(32)}` };
}

/** Connects the tenant's site (PUT …/payments/stripe) with fresh keys of the modes asked; answers them. */
export async function connectStripe(
  tenant: Tenant,
  options: { modes?: Array<'test' | 'live'>; mode?: 'test' | 'live' } = {},
): Promise<{ test?: StripeKeys; live?: StripeKeys }> {
  const modes = options.modes ?? ['test'];
  const keys = Object.fromEntries(modes.map((m) => [m, stripeKeys(m)])) as { test?: StripeKeys; live?: StripeKeys };
  const res = await tenant.api
    .put(`/api/v2/sites/${tenant.siteName}/payments/stripe`)
    .send({ ...keys, ...(options.mode ? { mode: options.mode } : {}) });
  if (res.status !== 200) throw new Error(`connect: ${res.status} ${JSON.stringify(res.body)}`);
  return keys;
}

/** A Stripe event posted to the site's events route as Stripe would: its body and Stripe-Signature. */
export function signedStripeEvent(
  event: Record<string, unknown>,
  webhookSecret: string,
  timestamp = Math.floor(Date.now() / 1000),
): { payload: string; header: string } {
  const payload = JSON.stringify(event);
  return { payload, header: Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret, timestamp }) };
}

export const stripeEventsUrl = (tenant: Tenant) => `/api/v2/sites/${tenant.siteName}/payments/stripe/events`;
