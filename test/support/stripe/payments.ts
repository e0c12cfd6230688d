/**
 * PaymentIntents, their charges and refunds, with the outcomes of Stripe's documented test
 * payment methods: `pm_card_visa` (and any other pm_ id) succeeds, `pm_card_chargeDeclined`
 * and `pm_card_chargeDeclinedInsufficientFunds` are 402 card errors, `pm_card_authenticationRequired`
 * is a 402 `authentication_required` off-session (the intent back to `requires_payment_method`,
 * as Stripe documents) and `requires_action` on-session.
 */
import { Ctx, fresh, Handler, paymentMethod } from './resources';
import {
  applyFields,
  invalidRequest,
  Json,
  Mode,
  newId,
  nowSeconds,
  ObjectStore,
  randomToken,
  StripeFailure,
  StripeObject,
} from './store';

const DECLINES: Record<string, { code: string; decline_code: string; message: string }> = {
  pm_card_chargeDeclined: {
    code: 'card_declined',
    decline_code: 'generic_decline',
    message: 'Your card was declined.',
  },
  pm_card_chargeDeclinedInsufficientFunds: {
    code: 'card_declined',
    decline_code: 'insufficient_funds',
    message: 'Your card has insufficient funds.',
  },
};
const AUTH_REQUIRED = 'pm_card_authenticationRequired';

const PI_FIELDS = ['amount', 'currency', 'customer', 'description', 'payment_method', 'receipt_email'];
const PI_MORE = ['setup_future_usage', 'statement_descriptor', 'statement_descriptor_suffix', 'transfer_group'];

function createPaymentIntent(ctx: Ctx): StripeObject {
  const { mode, params, store } = ctx;
  const pi = fresh('payment_intent', mode, newId('pi'));
  pi.client_secret = `${pi.id}_secret_${randomToken(25)}`;
  Object.assign(pi, {
    canceled_at: null,
    last_payment_error: null,
    next_action: null,
    processing: null,
    shipping: null,
    transfer_data: null,
    payment_method_configuration_details: null,
    amount_details: {},
    latest_charge: null,
    amount_received: 0,
    capture_method: params.capture_method ?? 'automatic',
    confirmation_method: params.confirmation_method ?? 'automatic',
    payment_method_types: params.payment_method_types ?? ['card'],
    automatic_payment_methods: params.automatic_payment_methods ?? null,
  });
  if (params.customer) store.need(mode, params.customer, 'customer', 'customer');
  if (params.payment_method) paymentMethod(store, mode, params.payment_method);
  applyFields(pi, params, [...PI_FIELDS, ...PI_MORE]);
  pi.status = pi.payment_method ? 'requires_confirmation' : 'requires_payment_method';
  store.put(mode, pi);
  if (params.confirm === true) confirm(store, mode, pi, params);
  return pi;
}

function updatePaymentIntent({ mode, ids, params, store }: Ctx): StripeObject {
  const pi = store.need(mode, ids.intent, 'payment_intent');
  if (['succeeded', 'canceled'].includes(pi.status) && Object.keys(params).some((k) => k !== 'metadata'))
    throw unexpectedState(pi, 'update');
  if (params.customer) store.need(mode, params.customer, 'customer', 'customer');
  if (params.payment_method) paymentMethod(store, mode, params.payment_method);
  applyFields(pi, params, [...PI_FIELDS, ...PI_MORE]);
  if (pi.status === 'requires_payment_method' && pi.payment_method) pi.status = 'requires_confirmation';
  return pi;
}

function confirmPaymentIntent({ mode, ids, params, store }: Ctx): StripeObject {
  const pi = store.need(mode, ids.intent, 'payment_intent');
  if (params.payment_method) paymentMethod(store, mode, params.payment_method);
  applyFields(pi, params, ['payment_method', 'setup_future_usage', 'receipt_email']);
  return confirm(store, mode, pi, params);
}

function unexpectedState(pi: StripeObject, action: string): StripeFailure {
  return new StripeFailure(400, {
    type: 'invalid_request_error',
    code: 'payment_intent_unexpected_state',
    message: `You cannot ${action} this PaymentIntent because it has a status of ${pi.status}.`,
    payment_intent: structuredClone(pi),
  });
}

/** Attempts the payment: the intent moves, or a 402 card error carries it (as Stripe's does). */
export function confirm(store: ObjectStore, mode: Mode, pi: StripeObject, params: Record<string, Json>): StripeObject {
  if (!['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(pi.status))
    throw unexpectedState(pi, 'confirm');
  const pmId = pi.payment_method as string | null;
  if (!pmId)
    throw new StripeFailure(400, {
      type: 'invalid_request_error',
      code: 'payment_intent_unexpected_state',
      message:
        "You cannot confirm this PaymentIntent because it's missing a payment method. To confirm the PaymentIntent with cus, pass a payment method.",
      payment_intent: structuredClone(pi),
    });
  const pm = paymentMethod(store, mode, pmId);
  const offSession =
    params.off_session === true || params.off_session === 'one_off' || params.off_session === 'recurring';
  if (pmId === AUTH_REQUIRED && !offSession) {
    pi.status = 'requires_action';
    pi.next_action = { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect', stripe_js: '' } };
    return pi;
  }
  const decline =
    DECLINES[pmId] ??
    (pmId === AUTH_REQUIRED
      ? {
          code: 'authentication_required',
          decline_code: 'authentication_required',
          message: 'Your card was declined. This transaction requires authentication.',
        }
      : null);
  if (decline) {
    const charge = makeCharge(store, mode, pi, pm, decline);
    const error = { type: 'card_error', ...decline, charge: charge.id, payment_method: structuredClone(pm) };
    Object.assign(pi, { status: 'requires_payment_method', payment_method: null, latest_charge: charge.id });
    Object.assign(pi, { last_payment_error: error, next_action: null });
    throw new StripeFailure(402, { ...error, payment_intent: structuredClone(pi) });
  }
  const charge = makeCharge(store, mode, pi, pm, null);
  const manual = pi.capture_method === 'manual';
  Object.assign(pi, { status: manual ? 'requires_capture' : 'succeeded', latest_charge: charge.id });
  Object.assign(pi, { amount_received: manual ? 0 : pi.amount, amount_capturable: manual ? pi.amount : 0 });
  Object.assign(pi, { last_payment_error: null, next_action: null });
  if (pi.customer && pi.setup_future_usage) pm.customer = pi.customer;
  return pi;
}

function makeCharge(
  store: ObjectStore,
  mode: Mode,
  pi: StripeObject,
  pm: StripeObject,
  decline: { code: string; decline_code: string; message: string } | null,
): StripeObject {
  const ch = fresh('charge', mode, newId('ch'));
  const captured = !decline && pi.capture_method !== 'manual';
  Object.assign(ch, {
    amount: pi.amount,
    amount_captured: captured ? pi.amount : 0,
    amount_refunded: 0,
    currency: pi.currency,
    customer: pi.customer,
    description: pi.description,
    payment_intent: pi.id,
    payment_method: pm.id,
    captured,
    paid: !decline,
    refunded: false,
    status: decline ? 'failed' : 'succeeded',
    failure_code: decline?.code ?? null,
    failure_message: decline?.message ?? null,
    balance_transaction: decline ? null : newId('txn'),
    metadata: { ...(pi.metadata as object) },
    source: null,
    transfer_data: null,
    shipping: null,
    receipt_url: null,
  });
  ch.outcome = {
    network_status: decline ? 'declined_by_network' : 'approved_by_network',
    reason: decline?.decline_code ?? null,
    risk_level: 'normal',
    seller_message: decline ? 'The bank did not return any further details with this decline.' : 'Payment complete.',
    type: decline ? 'issuer_declined' : 'authorized',
  };
  Object.assign(ch.payment_method_details.card, { brand: pm.card.brand, last4: pm.card.last4, network: pm.card.brand });
  ch.refunds = { object: 'list', data: [], has_more: false, total_count: 0, url: `/v1/charges/${ch.id}/refunds` };
  return store.put(mode, ch);
}

function cancelPaymentIntent({ mode, ids, params, store }: Ctx): StripeObject {
  const pi = store.need(mode, ids.intent, 'payment_intent');
  const cancellable = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action'];
  if (!cancellable.includes(pi.status)) throw unexpectedState(pi, 'cancel');
  Object.assign(pi, { status: 'canceled', canceled_at: nowSeconds(), next_action: null });
  pi.cancellation_reason = params.cancellation_reason ?? null;
  return pi;
}

/** Refunds `amount` (default: what remains) of a succeeded intent's or a charge's payment. */
export function refund(store: ObjectStore, mode: Mode, params: Record<string, Json>): StripeObject {
  let charge: StripeObject;
  if (params.charge) charge = store.need(mode, params.charge, 'charge', 'charge');
  else if (params.payment_intent) {
    const pi = store.need(mode, params.payment_intent, 'payment_intent', 'payment_intent');
    const latest = pi.latest_charge ? store.get(mode, pi.latest_charge, 'charge') : undefined;
    if (pi.status !== 'succeeded' || !latest)
      throw invalidRequest(
        `This PaymentIntent (${pi.id}) does not have a successful charge to refund.`,
        'charge_not_refundable',
        'payment_intent',
      );
    charge = latest;
  } else
    throw invalidRequest(
      'One of the following params should be provided for this request: payment_intent or charge.',
      'parameter_missing',
    );
  const remaining = charge.amount_captured - charge.amount_refunded;
  if (charge.status !== 'succeeded' || remaining <= 0)
    throw invalidRequest(`Charge ${charge.id} has already been refunded.`, 'charge_already_refunded');
  const amount = (params.amount as number | undefined) ?? remaining;
  if (amount > remaining)
    throw invalidRequest(
      `Refund amount (${amount}) is greater than unrefunded amount on charge (${remaining})`,
      'amount_too_large',
      'amount',
    );
  const re = fresh('refund', mode, newId('re'));
  Object.assign(re, { amount, charge: charge.id, payment_intent: charge.payment_intent, currency: charge.currency });
  Object.assign(re, { status: 'succeeded', reason: params.reason ?? null, balance_transaction: newId('txn') });
  Object.assign(re, { customer: charge.customer, payment_method: charge.payment_method });
  applyFields(re, params, ['metadata']);
  store.put(mode, re);
  charge.amount_refunded += amount;
  charge.refunded = charge.amount_refunded >= charge.amount_captured;
  charge.refunds.data.unshift(re);
  charge.refunds.total_count += 1;
  return re;
}

/** A PaymentIntent made outside the API (a completed Checkout Session's payment). */
export const newPaymentIntent = (store: ObjectStore, mode: Mode, params: Record<string, Json>) =>
  createPaymentIntent({ mode, ids: {}, params, store });

const get =
  (object: string, id: string): Handler =>
  ({ mode, ids, store }) =>
    store.need(mode, ids[id], object);

export const PAYMENT_HANDLERS: Record<string, Handler> = {
  PostPaymentIntents: createPaymentIntent,
  GetPaymentIntentsIntent: get('payment_intent', 'intent'),
  PostPaymentIntentsIntent: updatePaymentIntent,
  PostPaymentIntentsIntentConfirm: confirmPaymentIntent,
  PostPaymentIntentsIntentCancel: cancelPaymentIntent,
  PostRefunds: ({ mode, params, store }) => refund(store, mode, params),
  GetRefundsRefund: get('refund', 'refund'),
};
