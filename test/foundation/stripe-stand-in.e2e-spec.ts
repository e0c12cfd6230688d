import Stripe from 'stripe';
import type { StripeStandIn } from '../support/stripe/stand-in';
import { stripeFailure, withStandInClient } from '../support/stripe/with-stand-in';

/**
 * The Stripe stand-in (test/support/stripe/stand-in.ts) through the official `stripe` package:
 * the requests the adapter makes are checked against Stripe's own spec (a request the spec
 * refuses is Stripe's 400 naming the parameter), and the answers behave as Stripe's do.
 * Failures, idempotency and webhook events: stripe-stand-in-failures.e2e-spec.ts.
 */
describe('Stripe stand-in: requests checked against Stripe’s spec', () => {
  const s = withStandInClient();
  let standIn: StripeStandIn;
  let stripe: Stripe;
  beforeAll(() => ({ standIn, stripe } = s));

  const failure = stripeFailure;

  it('creates, updates and lists products; metadata merges and "" unsets', async () => {
    const product = await stripe.products.create({ name: 'Mug', metadata: { sku: 'm1', colour: 'red' } });
    expect(product).toMatchObject({ object: 'product', name: 'Mug', active: true, livemode: false });
    expect(product.id).toMatch(/^prod_\w{24}$/);
    expect(product.metadata).toEqual({ sku: 'm1', colour: 'red' });

    const updated = await stripe.products.update(product.id, {
      name: 'Big mug',
      description: 'Holds more',
      metadata: { colour: '', size: 'xl' },
    });
    expect(updated).toMatchObject({ name: 'Big mug', description: 'Holds more', metadata: { sku: 'm1', size: 'xl' } });
    const archived = await stripe.products.update(product.id, { active: false, description: '' });
    expect(archived).toMatchObject({ active: false, description: null });
    expect(await stripe.products.retrieve(product.id)).toEqual(archived);
    const listed = await stripe.products.list({ active: false, limit: 5 });
    expect(listed.data.map((p) => p.id)).toEqual([product.id]);
  });

  it('creates a monthly recurring price of a product, and refuses a product it does not know', async () => {
    const product = await stripe.products.create({ name: 'Club' });
    const price = await stripe.prices.create({
      product: product.id,
      currency: 'eur',
      unit_amount: 1500,
      recurring: { interval: 'month' },
      metadata: { variant: '7' },
    });
    expect(price).toMatchObject({
      object: 'price',
      product: product.id,
      currency: 'eur',
      unit_amount: 1500,
      type: 'recurring',
      active: true,
      recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' },
      metadata: { variant: '7' },
    });
    expect(price.id).toMatch(/^price_/);
    expect(String(price.unit_amount_decimal)).toBe('1500');
    expect(await stripe.prices.update(price.id, { active: false })).toMatchObject({ active: false });
    const missing = await failure(stripe.prices.create({ product: 'prod_nope', currency: 'eur', unit_amount: 1 }));
    expect(missing).toMatchObject({ type: 'StripeInvalidRequestError', code: 'resource_missing', param: 'product' });
  });

  it('keeps a customer and its default payment method', async () => {
    const customer = await stripe.customers.create({ email: 'ada@example.com', name: 'Ada', metadata: { user: '9' } });
    expect(customer.id).toMatch(/^cus_/);
    await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: 'pm_card_visa' } });
    const read = await stripe.customers.retrieve(customer.id);
    expect(read).toMatchObject({
      email: 'ada@example.com',
      invoice_settings: { default_payment_method: 'pm_card_visa' },
    });
    const pm = await stripe.paymentMethods.retrieve('pm_card_visa');
    expect(pm).toMatchObject({
      object: 'payment_method',
      customer: customer.id,
      card: { brand: 'visa', last4: '4242' },
    });
  });

  it('pays a PaymentIntent with pm_card_visa: created, confirmed, charged, refunded', async () => {
    const customer = await stripe.customers.create({ email: 'b@example.com' });
    const pi = await stripe.paymentIntents.create({ amount: 2500, currency: 'eur', customer: customer.id });
    expect(pi).toMatchObject({ status: 'requires_payment_method', amount: 2500, latest_charge: null });
    expect(pi.client_secret).toMatch(new RegExp(`^${pi.id}_secret_\\w+$`));

    const paid = await stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_visa' });
    expect(paid).toMatchObject({ status: 'succeeded', amount_received: 2500, payment_method: 'pm_card_visa' });
    expect(paid.latest_charge).toMatch(/^ch_/);

    const refund = await stripe.refunds.create({ payment_intent: pi.id, amount: 1000 });
    expect(refund).toMatchObject({ object: 'refund', status: 'succeeded', amount: 1000, payment_intent: pi.id });
    expect(refund.id).toMatch(/^re_/);
    expect(await stripe.refunds.retrieve(refund.id)).toEqual(refund);
    const tooMuch = await failure(stripe.refunds.create({ payment_intent: pi.id, amount: 2000 }));
    expect(tooMuch).toMatchObject({ type: 'StripeInvalidRequestError', code: 'amount_too_large', param: 'amount' });
    const rest = await stripe.refunds.create({ payment_intent: pi.id }, { idempotencyKey: `refund-${pi.id}` });
    expect(rest.amount).toBe(1500);
    const charge = standIn.objects('charge').find((c) => c.id === paid.latest_charge);
    expect(charge).toMatchObject({ refunded: true, amount_refunded: 2500, payment_intent: pi.id });
  });

  it('confirms on create, saves the card for later, and refuses to refund an unpaid intent', async () => {
    const customer = await stripe.customers.create({});
    const pi = await stripe.paymentIntents.create(
      {
        amount: 900,
        currency: 'eur',
        customer: customer.id,
        payment_method: 'pm_card_mastercard',
        setup_future_usage: 'off_session',
        confirm: true,
        expand: ['latest_charge'],
      },
      { idempotencyKey: 'ledger-line-41' },
    );
    expect(pi.status).toBe('succeeded');
    expect(pi.latest_charge).toMatchObject({ object: 'charge', paid: true, amount: 900, payment_intent: pi.id });
    expect(await stripe.paymentMethods.retrieve('pm_card_mastercard')).toMatchObject({ customer: customer.id });

    const unpaid = await stripe.paymentIntents.create({ amount: 900, currency: 'eur' });
    const refused = await failure(stripe.refunds.create({ payment_intent: unpaid.id }));
    expect(refused).toMatchObject({ type: 'StripeInvalidRequestError', statusCode: 400, param: 'payment_intent' });
    expect(await stripe.paymentIntents.cancel(unpaid.id)).toMatchObject({ status: 'canceled' });
    const again = await failure(stripe.paymentIntents.cancel(unpaid.id));
    expect(again).toMatchObject({ code: 'payment_intent_unexpected_state' });
  });

  it('declines the test cards Stripe documents as declined, with the intent in the error', async () => {
    const declined = await failure(
      stripe.paymentIntents.create({
        amount: 500,
        currency: 'eur',
        payment_method: 'pm_card_chargeDeclined',
        confirm: true,
      }),
    );
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(declined).toMatchObject({ statusCode: 402, code: 'card_declined', decline_code: 'generic_decline' });
    expect(declined.payment_intent).toMatchObject({ status: 'requires_payment_method' });
    const stored = await stripe.paymentIntents.retrieve(declined.payment_intent!.id);
    expect(stored.last_payment_error).toMatchObject({ code: 'card_declined', decline_code: 'generic_decline' });

    const poor = await failure(
      stripe.paymentIntents.create({
        amount: 500,
        currency: 'eur',
        payment_method: 'pm_card_chargeDeclinedInsufficientFunds',
        confirm: true,
      }),
    );
    expect(poor).toMatchObject({ statusCode: 402, code: 'card_declined', decline_code: 'insufficient_funds' });

    const customer = await stripe.customers.create({});
    const offSession = await failure(
      stripe.paymentIntents.create({
        amount: 500,
        currency: 'eur',
        customer: customer.id,
        payment_method: 'pm_card_authenticationRequired',
        off_session: true,
        confirm: true,
      }),
    );
    expect(offSession).toMatchObject({ type: 'StripeCardError', code: 'authentication_required' });
    expect(offSession.payment_intent).toMatchObject({ status: 'requires_payment_method' });
    const onSession = await stripe.paymentIntents.create({
      amount: 500,
      currency: 'eur',
      payment_method: 'pm_card_authenticationRequired',
      confirm: true,
    });
    expect(onSession).toMatchObject({ status: 'requires_action', next_action: { type: 'use_stripe_sdk' } });
  });

  it('makes SetupIntents and Checkout Sessions; reads the account and the balance', async () => {
    const customer = await stripe.customers.create({});
    const si = await stripe.setupIntents.create({ customer: customer.id, usage: 'off_session' });
    expect(si).toMatchObject({ status: 'requires_payment_method', customer: customer.id });
    expect(si.client_secret).toMatch(new RegExp(`^${si.id}_secret_`));
    expect(await stripe.setupIntents.retrieve(si.id)).toEqual(si);

    const product = await stripe.products.create({ name: 'Tea' });
    const price = await stripe.prices.create({ product: product.id, currency: 'eur', unit_amount: 450 });
    const session = await stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [{ price: price.id, quantity: 3 }],
      success_url: 'https://shop.example/ok',
      client_reference_id: 'order-17',
      metadata: { order: '17' },
    });
    expect(session.id).toMatch(/^cs_test_/);
    expect(session).toMatchObject({
      status: 'open',
      amount_total: 1350,
      currency: 'eur',
      client_reference_id: 'order-17',
    });
    expect(await stripe.checkout.sessions.retrieve(session.id)).toEqual(session);
    expect((await stripe.accounts.retrieveCurrent()).id).toMatch(/^acct_/);
    expect(await stripe.balance.retrieve()).toMatchObject({ object: 'balance', livemode: false });
  });

  it('refuses what Stripe’s spec refuses, naming the parameter, and counts it invalid', async () => {
    const before = standIn.invalid().length;
    const product = await stripe.products.create({ name: 'Spec' });
    const cases: [() => Promise<unknown>, string, string][] = [
      [
        () => stripe.prices.create({ product: product.id } as Stripe.PriceCreateParams),
        'parameter_missing',
        'currency',
      ],
      [
        () => stripe.products.create({ name: 'x', colour: 'red' } as Stripe.ProductCreateParams),
        'parameter_unknown',
        'colour',
      ],
      [
        () => stripe.prices.create({ product: product.id, currency: 'eur', unit_amount: 'ten' as unknown as number }),
        'parameter_invalid_integer',
        'unit_amount',
      ],
      [
        () => stripe.products.update(product.id, { active: 'yes' as unknown as boolean }),
        'parameter_invalid_boolean',
        'active',
      ],
      [
        () =>
          stripe.prices.create({
            product: product.id,
            currency: 'eur',
            recurring: { interval: 'fortnight' as 'month' },
          }),
        'parameter_invalid_enum',
        'recurring[interval]',
      ],
      [
        () =>
          stripe.prices.create({
            product: product.id,
            currency: 'eur',
            recurring: { interval_count: 2 } as Stripe.PriceCreateParams.Recurring,
          }),
        'parameter_missing',
        'recurring[interval]',
      ],
      [
        () =>
          stripe.checkout.sessions.create({
            mode: 'payment',
            line_items: [{ price: 'p', quantity: 1, colour: 'x' }],
          } as never),
        'parameter_unknown',
        'line_items[0][colour]',
      ],
      [() => stripe.products.create({ name: 'x'.repeat(5001) }), 'parameter_invalid_string_too_long', 'name'],
      [() => stripe.products.update(product.id, { name: '' }), 'parameter_invalid_empty', 'name'],
      [() => stripe.products.list({ limit: 'many' as unknown as number }), 'parameter_invalid_integer', 'limit'],
    ];
    for (const [call, code, param] of cases) {
      expect({ param, error: await failure(call()) }).toMatchObject({
        param,
        error: { type: 'StripeInvalidRequestError', statusCode: 400, code, param },
      });
    }
    expect(standIn.invalid().length - before).toBe(cases.length);
    expect(standIn.invalid().at(-1)).toMatchObject({ operationId: 'GetProducts', valid: false, status: 400 });
  });

  it('keeps test and live objects apart', async () => {
    const live = new Stripe('sk_live_standin', { ...standIn.clientOptions(), maxNetworkRetries: 0 });
    const testProduct = await stripe.products.create({ name: 'Test only' });
    const missing = await failure(live.products.retrieve(testProduct.id));
    expect(missing).toMatchObject({ type: 'StripeInvalidRequestError', statusCode: 404, code: 'resource_missing' });
    const liveProduct = await live.products.create({ name: 'Live' });
    expect(liveProduct.livemode).toBe(true);
    expect(standIn.requests.at(-1)).toMatchObject({ apiKey: 'sk_live_standin', valid: true });
  });
});
