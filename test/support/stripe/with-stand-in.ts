import Stripe from 'stripe';
import { startStripeStandIn, StripeStandIn } from './stand-in';

/**
 * A stand-in for the file and the official client pointed at it (a test key, no retries of its
 * own), started before the file's tests and closed after them. Read the fields inside tests.
 */
export function withStandInClient(): { standIn: StripeStandIn; stripe: Stripe } {
  const ctx = { standIn: undefined as unknown as StripeStandIn, stripe: undefined as unknown as Stripe };
  beforeAll(async () => {
    ctx.standIn = await startStripeStandIn();
    ctx.stripe = new Stripe('sk_test_standin', { ...ctx.standIn.clientOptions(), maxNetworkRetries: 0 });
  });
  afterAll(() => ctx.standIn?.close());
  return ctx;
}

/** The error a call throws, for its fields; a call that succeeds fails the test. */
export const stripeFailure = (p: Promise<unknown>): Promise<Stripe.errors.StripeError> =>
  p.then(
    (answer) => {
      throw new Error(`the call succeeded: ${JSON.stringify(answer).slice(0, 200)}`);
    },
    (e: unknown) => e as Stripe.errors.StripeError,
  );
