/**
 * Stripe webhook events for tests, shaped like the `event` resource of Stripe's fixtures (and
 * the spec's `event` schema), signed the way Stripe signs them (`Stripe-Signature: t=…,v1=…`)
 * with the `stripe` package's own test-header helper, so `stripe.webhooks.constructEvent`
 * accepts them.
 *
 *   const event = stripeEvent('payment_intent.succeeded', pi);
 *   const { payload, header } = signStripeEvent(event, 'whsec_test');
 *   await request(app).post(route).set('Stripe-Signature', header).type('json').send(payload);
 */
import Stripe from 'stripe';
import { fixture } from './spec';
import { randomToken } from './store';

export interface StripeEventOptions {
  id?: string;
  /** Seconds since the epoch (default: now). */
  created?: number;
  /** Default: the object's own `livemode`, else false. */
  livemode?: boolean;
  /** Default: the API version the `stripe` package pins (what the app's account would use). */
  apiVersion?: string;
  /** `data.previous_attributes`, for `*.updated` events. */
  previousAttributes?: Record<string, unknown>;
  /** `request.id` / `request.idempotency_key`: the API request that caused the event. */
  request?: { id: string | null; idempotency_key: string | null };
  pendingWebhooks?: number;
}

export type StripeEventObject = Stripe.Event & Record<string, unknown>;

export function stripeEvent(
  type: string,
  object: Record<string, unknown>,
  opts: StripeEventOptions = {},
): StripeEventObject {
  const event = fixture('event');
  event.id = opts.id ?? `evt_${randomToken(24)}`;
  event.api_version = opts.apiVersion ?? Stripe.API_VERSION;
  event.created = opts.created ?? Math.floor(Date.now() / 1000);
  event.data = {
    object: structuredClone(object),
    ...(opts.previousAttributes ? { previous_attributes: opts.previousAttributes } : {}),
  };
  event.livemode = opts.livemode ?? object.livemode === true;
  event.pending_webhooks = opts.pendingWebhooks ?? 1;
  event.request = opts.request ?? { id: null, idempotency_key: null };
  event.type = type;
  return event as StripeEventObject;
}

/**
 * The body Stripe would POST (pretty-printed JSON, as Stripe sends it) and its
 * `Stripe-Signature` header for `secret`; `timestamp` in seconds (default now; an old one
 * makes a stale event).
 */
export function signStripeEvent(
  event: Record<string, unknown>,
  secret: string,
  opts: { timestamp?: number } = {},
): { payload: string; header: string } {
  const payload = JSON.stringify(event, null, 2);
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
  return { payload, header };
}
