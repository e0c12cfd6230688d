import { Injectable } from '@nestjs/common';
import Stripe from 'stripe';
import { PaymentsConfig } from '../payments.config';
import { Problem } from '../../common/errors/problems';

/**
 * The official Stripe client, one per secret key (a site and a mode), pointed at
 * STRIPE_API_BASE (Stripe itself, an egress proxy, or the test stand-in). The client retries
 * a failed request STRIPE_MAX_NETWORK_RETRIES times with the same idempotency key, and gives up
 * after STRIPE_TIMEOUT_MS.
 */
@Injectable()
export class StripeClients {
  private readonly clients = new Map<string, Stripe>();
  private readonly base: URL;

  constructor(private readonly config: PaymentsConfig) {
    this.base = new URL(config.STRIPE_API_BASE);
  }

  client(secretKey: string): Stripe {
    let client = this.clients.get(secretKey);
    if (!client) {
      const https = this.base.protocol === 'https:';
      client = new Stripe(secretKey, {
        host: this.base.hostname,
        port: this.base.port === '' ? (https ? 443 : 80) : Number(this.base.port),
        protocol: https ? 'https' : 'http',
        timeout: this.config.STRIPE_TIMEOUT_MS,
        maxNetworkRetries: this.config.STRIPE_MAX_NETWORK_RETRIES,
        telemetry: false,
        appInfo: { name: 'Sitebase', url: 'https://github.com/sitebase' },
      });
      // One client per key; a disconnected or replaced key's client is dropped with the map's oldest.
      if (this.clients.size >= 1000) this.clients.delete(this.clients.keys().next().value!);
      this.clients.set(secretKey, client);
    }
    return client;
  }

  /** A webhook event verified with one of `secrets` (stripe.webhooks.constructEvent), or null. */
  verifyEvent(raw: Buffer, header: string, secrets: string[]): { event: Stripe.Event; secret: string } | null {
    for (const secret of secrets) {
      try {
        const event = Stripe.webhooks.constructEvent(raw, header, secret, this.config.STRIPE_WEBHOOK_TOLERANCE_SECONDS);
        return { event, secret };
      } catch {
        // Another secret may verify it.
      }
    }
    return null;
  }
}

/** What a Stripe failure may show (an operator's `processorSync.error`, a log line): never a key or a header. */
export interface StripeFailure {
  type: string;
  code: string | null;
  status: number | null;
  message: string;
  /** A failure that a later try may not meet: no connection, a timeout, 429, 5xx. */
  transient: boolean;
}

export function describeStripeFailure(err: unknown): StripeFailure {
  if (err instanceof Stripe.errors.StripeError) {
    const status = err.statusCode ?? null;
    const transient =
      err instanceof Stripe.errors.StripeConnectionError ||
      err instanceof Stripe.errors.StripeAPIError ||
      err instanceof Stripe.errors.StripeRateLimitError ||
      status === null ||
      status === 409 ||
      status >= 500;
    // Stripe's answer to a refused key names a masked part of it: such a message is replaced.
    const refusedKey =
      err instanceof Stripe.errors.StripeAuthenticationError || err instanceof Stripe.errors.StripePermissionError;
    const message = refusedKey
      ? `Stripe refused the site's key (${status ?? 'no status'}): connect the site again with a key that has the permissions docs/payments.md lists`
      : err.message.replace(/\b(sk|rk|pk)_(test|live)_[*A-Za-z0-9]+/g, '[key]').slice(0, 500);
    return { type: err.type, code: err.code ?? null, status, message, transient };
  }
  return { type: 'internal', code: null, status: null, message: 'The request to Stripe failed', transient: true };
}

/** A 503 `processor_unavailable` (Stripe answered 5xx or 429, or not at all), or a 409 `processor_declined`. */
export function stripeProblem(err: unknown): Problem {
  const failure = describeStripeFailure(err);
  if (failure.transient || failure.type === 'StripeAuthenticationError' || failure.type === 'StripePermissionError')
    return new Problem({
      status: 503,
      code: 'processor_unavailable',
      title: 'Service unavailable',
      detail: `Stripe did not accept the request (${failure.code ?? failure.type}); nothing was changed, try again`,
      headers: { 'Retry-After': '5' },
    });
  return new Problem({
    status: 409,
    code: 'processor_declined',
    title: 'Conflict',
    detail: `Stripe refused: ${failure.message}`,
  });
}
