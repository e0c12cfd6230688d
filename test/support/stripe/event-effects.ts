/**
 * `standIn.eventFor(type, id)`: an event whose `data.object` is the stand-in's stored object,
 * moved first to the state the event announces (so a later GET agrees with the event).
 */
import { stripeEvent, StripeEventObject, StripeEventOptions } from './events';
import { confirm, newPaymentIntent, refund } from './payments';
import { paymentMethod } from './resources';
import { invalidRequest, Mode, ObjectStore, StripeFailure, StripeObject } from './store';

function succeed(store: ObjectStore, mode: Mode, pi: StripeObject): StripeObject {
  if (pi.status === 'succeeded') return pi;
  if (!pi.payment_method || pi.payment_method === 'pm_card_authenticationRequired') {
    paymentMethod(store, mode, 'pm_card_visa');
    pi.payment_method = 'pm_card_visa';
  }
  if (pi.status === 'requires_action') pi.status = 'requires_confirmation';
  return confirm(store, mode, pi, {});
}

function fail(store: ObjectStore, mode: Mode, pi: StripeObject): StripeObject {
  paymentMethod(store, mode, 'pm_card_chargeDeclined');
  pi.payment_method = 'pm_card_chargeDeclined';
  try {
    confirm(store, mode, pi, {});
  } catch (e) {
    if (!(e instanceof StripeFailure)) throw e;
  }
  return pi;
}

/** The object of an event type, after its effect: `charge.*` accept a PaymentIntent id too. */
function effect(store: ObjectStore, mode: Mode, type: string, obj: StripeObject): StripeObject {
  const chargeOf = (pi: StripeObject) => store.need(mode, succeed(store, mode, pi).latest_charge, 'charge');
  switch (type) {
    case 'payment_intent.succeeded':
      return succeed(store, mode, obj);
    case 'payment_intent.payment_failed':
      return fail(store, mode, obj);
    case 'payment_intent.canceled':
      Object.assign(obj, { status: 'canceled', canceled_at: Math.floor(Date.now() / 1000) });
      return obj;
    case 'charge.succeeded':
      return obj.object === 'payment_intent' ? chargeOf(obj) : obj;
    case 'charge.refunded': {
      const charge = obj.object === 'payment_intent' ? chargeOf(obj) : obj;
      if (!charge.refunded) refund(store, mode, { charge: charge.id });
      return charge;
    }
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      Object.assign(obj, { status: 'complete', payment_status: obj.mode === 'setup' ? 'no_payment_required' : 'paid' });
      if (obj.mode === 'payment' && !obj.payment_intent) {
        const { amount_total: amount, currency, customer, metadata } = obj;
        const pi = newPaymentIntent(store, mode, {
          amount,
          currency,
          customer,
          metadata,
          payment_method: 'pm_card_visa',
        });
        obj.payment_intent = confirm(store, mode, pi, {}).id;
      }
      return obj;
    case 'checkout.session.expired':
      Object.assign(obj, { status: 'expired' });
      return obj;
    case 'setup_intent.succeeded':
      obj.status = 'succeeded';
      if (!obj.payment_method) obj.payment_method = paymentMethod(store, mode, 'pm_card_visa').id;
      return obj;
    default:
      return obj;
  }
}

export function eventFromStore(
  store: ObjectStore,
  type: string,
  objectId: string,
  opts: StripeEventOptions = {},
): StripeEventObject {
  const found = store.find(objectId);
  if (!found) throw invalidRequest(`The stand-in holds no object ${objectId}`, 'resource_missing');
  const obj = effect(store, found.mode, type, found.obj);
  const event = stripeEvent(type, obj, { livemode: found.mode === 'live', ...opts });
  store.put(found.mode, event);
  return event;
}
