import Stripe from 'stripe';
import { describeStripeFailure } from './stripe-clients';

/** What a Stripe failure may show (stored as an operator's error, logged): never a key, masked or not. */
describe('describeStripeFailure', () => {
  const raw = (type: string, message: string, statusCode: number) =>
    Stripe.errors.generateV1Error({ type, message, statusCode } as never);

  it('replaces the answer to a refused key, which names a masked part of it', () => {
    const auth = describeStripeFailure(
      raw('authentication_error', 'Invalid API Key provided: rk_test_****************Lw2x', 401),
    );
    expect(auth.message).not.toMatch(/rk_test|Lw2x/);
    expect(auth.message).toMatch(/refused the site's key \(401\)/);
    expect(auth.transient).toBe(false);
  });

  it('keeps Stripe’s words otherwise, without anything shaped like a key', () => {
    const bad = describeStripeFailure(
      raw('invalid_request_error', 'No such price: price_123; key sk_live_abcDEF123', 400),
    );
    expect(bad).toMatchObject({ status: 400, transient: false });
    expect(bad.message).toBe('No such price: price_123; key [key]');
    expect(describeStripeFailure(raw('api_error', 'Oops', 500)).transient).toBe(true);
    expect(describeStripeFailure(new Error('socket hang up'))).toMatchObject({
      transient: true,
      message: 'The request to Stripe failed',
    });
  });
});
