/**
 * What the stand-in answers for the catalog and customer operations: objects built from
 * Stripe's fixtures with fresh ids, the request's fields applied, kept in the store so a later
 * GET or update of that id sees them.
 */
import { fixture } from './spec';
import {
  Answer,
  applyFields,
  invalidRequest,
  Json,
  Mode,
  newId,
  nowSeconds,
  ObjectStore,
  randomToken,
  StripeObject,
} from './store';

export interface Ctx {
  mode: Mode;
  ids: Record<string, string>;
  params: Record<string, Json>;
  store: ObjectStore;
}
export type Handler = (ctx: Ctx) => StripeObject | Answer;

/** A fixture as a new object of this stand-in: fresh id, mode, creation time, no sample metadata. */
export function fresh(name: string, mode: Mode, id: string): StripeObject {
  const obj = fixture(name) as StripeObject;
  obj.id = id;
  obj.livemode = mode === 'live';
  if ('created' in obj) obj.created = nowSeconds();
  if ('metadata' in obj) obj.metadata = {};
  return obj;
}

const PRODUCT_FIELDS = ['name', 'active', 'description', 'images', 'shippable', 'statement_descriptor'];
const PRODUCT_MORE = ['tax_code', 'unit_label', 'url', 'default_price', 'marketing_features', 'package_dimensions'];

function createProduct({ mode, params, store }: Ctx): StripeObject {
  const p = fresh('product', mode, (params.id as string | undefined) ?? newId('prod'));
  if (store.get(mode, p.id)) throw invalidRequest(`Product already exists.`, 'resource_already_exists', 'id');
  Object.assign(p, { active: true, description: null, default_price: null, images: [], package_dimensions: null });
  Object.assign(p, { shippable: null, updated: p.created, type: 'service', marketing_features: [] });
  applyFields(p, params, [...PRODUCT_FIELDS, ...PRODUCT_MORE]);
  store.put(mode, p);
  if (params.default_price_data) {
    const price = createPrice({ mode, ids: {}, params: { ...params.default_price_data, product: p.id }, store });
    p.default_price = price.id;
  }
  return p;
}

function updateProduct({ mode, ids, params, store }: Ctx): StripeObject {
  const p = store.need(mode, ids.id, 'product');
  if (params.default_price) store.need(mode, params.default_price, 'price', 'default_price');
  applyFields(p, params, [...PRODUCT_FIELDS, ...PRODUCT_MORE]);
  p.updated = nowSeconds();
  return p;
}

function listProducts({ mode, params, store }: Ctx): Answer {
  let data = store.list(mode, 'product').reverse();
  if (params.active !== undefined) data = data.filter((p) => p.active === params.active);
  if (Array.isArray(params.ids)) data = data.filter((p) => (params.ids as string[]).includes(p.id));
  const limit = (params.limit as number | undefined) ?? 10;
  return {
    status: 200,
    body: { object: 'list', data: data.slice(0, limit), has_more: data.length > limit, url: '/v1/products' },
  };
}

const PRICE_UPDATE = ['active', 'nickname', 'lookup_key', 'tax_behavior'];

function createPrice({ mode, params, store }: Ctx): StripeObject {
  const price = fresh('price', mode, newId('price'));
  let product = params.product as string | undefined;
  if (product) store.need(mode, product, 'product', 'product');
  else if (params.product_data) {
    product = createProduct({ mode, ids: {}, params: params.product_data, store }).id;
  } else throw invalidRequest('Missing required param: product.', 'parameter_missing', 'product');
  const amount = params.unit_amount as number | undefined;
  const decimal = params.unit_amount_decimal as string | undefined;
  Object.assign(price, {
    product,
    active: true,
    currency: params.currency,
    unit_amount: amount ?? (decimal !== undefined ? Math.round(Number(decimal)) : null),
    unit_amount_decimal: decimal ?? (amount !== undefined ? String(amount) : null),
    billing_scheme: params.billing_scheme ?? 'per_unit',
    tax_behavior: params.tax_behavior ?? 'unspecified',
    custom_unit_amount: null,
    transform_quantity: null,
    tiers_mode: params.tiers_mode ?? null,
    type: params.recurring ? 'recurring' : 'one_time',
    recurring: params.recurring
      ? {
          interval: params.recurring.interval,
          interval_count: params.recurring.interval_count ?? 1,
          usage_type: params.recurring.usage_type ?? 'licensed',
          meter: params.recurring.meter ?? null,
          trial_period_days: params.recurring.trial_period_days ?? null,
        }
      : null,
  });
  applyFields(price, params, [...PRICE_UPDATE, 'metadata']);
  return store.put(mode, price);
}

function updatePrice({ mode, ids, params, store }: Ctx): StripeObject {
  const price = store.need(mode, ids.price, 'price');
  applyFields(price, params, PRICE_UPDATE);
  return price;
}

const CUSTOMER_FIELDS = ['email', 'name', 'description', 'phone', 'address', 'shipping', 'preferred_locales'];

function customerSettings(c: StripeObject, params: Record<string, Json>, mode: Mode, store: ObjectStore): void {
  const settings = params.invoice_settings as Record<string, unknown> | undefined;
  if (settings && 'default_payment_method' in settings) {
    const pm = settings.default_payment_method as string;
    if (pm) paymentMethod(store, mode, pm, 'invoice_settings[default_payment_method]').customer = c.id;
    c.invoice_settings.default_payment_method = pm === '' ? null : pm;
  }
}

function createCustomer({ mode, params, store }: Ctx): StripeObject {
  const c = fresh('customer', mode, newId('cus'));
  Object.assign(c, { discount: null, shipping: null, currency: null, invoice_prefix: randomToken(8).toUpperCase() });
  applyFields(c, params, CUSTOMER_FIELDS);
  store.put(mode, c);
  if (params.payment_method) paymentMethod(store, mode, params.payment_method, 'payment_method').customer = c.id;
  customerSettings(c, params, mode, store);
  return c;
}

function updateCustomer({ mode, ids, params, store }: Ctx): StripeObject {
  const c = store.need(mode, ids.customer, 'customer');
  applyFields(c, params, CUSTOMER_FIELDS);
  customerSettings(c, params, mode, store);
  return c;
}

/** Stripe's test cards by their documented payment-method names; any other pm_ is a visa. */
const TEST_CARDS: Record<string, { brand: string; last4: string }> = {
  pm_card_visa: { brand: 'visa', last4: '4242' },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444' },
  pm_card_chargeDeclined: { brand: 'visa', last4: '0002' },
  pm_card_chargeDeclinedInsufficientFunds: { brand: 'visa', last4: '9995' },
  pm_card_authenticationRequired: { brand: 'visa', last4: '3184' },
};

/** The payment method of an id: stored, or made on first use for a pm_ id (a test card). */
export function paymentMethod(store: ObjectStore, mode: Mode, id: string, param = 'payment_method'): StripeObject {
  const known = store.get(mode, id, 'payment_method');
  if (known) return known;
  if (!id.startsWith('pm_')) throw invalidRequest(`No such PaymentMethod: '${id}'`, 'resource_missing', param);
  const pm = fresh('payment_method', mode, id);
  const card = TEST_CARDS[id] ?? TEST_CARDS.pm_card_visa;
  Object.assign(pm, { customer: null, allow_redisplay: 'unspecified' });
  Object.assign(pm.card, card, { display_brand: card.brand, wallet: null, generated_from: null });
  pm.card.networks = { available: [card.brand], preferred: null };
  return store.put(mode, pm);
}

function retrievePaymentMethod({ mode, ids, store }: Ctx): StripeObject {
  const id = ids.payment_method;
  if (!store.get(mode, id, 'payment_method') && !(id in TEST_CARDS)) store.need(mode, id, 'payment_method');
  return paymentMethod(store, mode, id);
}

function createSetupIntent({ mode, params, store }: Ctx): StripeObject {
  const si = fresh('setup_intent', mode, newId('seti'));
  si.client_secret = `${si.id}_secret_${randomToken(32)}`;
  Object.assign(si, { last_setup_error: null, next_action: null, payment_method_configuration_details: null });
  if (params.customer) store.need(mode, params.customer, 'customer', 'customer');
  applyFields(si, params, ['customer', 'description', 'payment_method', 'usage', 'payment_method_types']);
  si.status = si.payment_method ? 'requires_confirmation' : 'requires_payment_method';
  if (params.confirm === true && si.payment_method) {
    si.status = 'succeeded';
    const pm = paymentMethod(store, mode, si.payment_method);
    if (si.customer) pm.customer = si.customer;
  }
  return store.put(mode, si);
}

function createCheckoutSession({ mode, params, store }: Ctx): StripeObject {
  const cs = fresh('checkout.session', mode, `cs_${mode}_${randomToken(58)}`);
  if (params.customer) store.need(mode, params.customer, 'customer', 'customer');
  let total = 0;
  let currency = params.currency as string | undefined;
  ((params.line_items as Record<string, Json>[] | undefined) ?? []).forEach((line, i) => {
    const price = line.price
      ? store.need(mode, line.price, 'price', `line_items[${i}][price]`)
      : { unit_amount: line.price_data?.unit_amount ?? 0, currency: line.price_data?.currency };
    total += Number(price.unit_amount ?? 0) * Number(line.quantity ?? 1);
    currency ??= price.currency;
  });
  Object.assign(cs, {
    mode: params.mode,
    status: 'open',
    payment_status: params.mode === 'setup' ? 'no_payment_required' : 'unpaid',
    amount_subtotal: total,
    amount_total: total,
    currency: currency ?? null,
    customer: params.customer ?? null,
    customer_email: params.customer_email ?? null,
    client_reference_id: params.client_reference_id ?? null,
    success_url: params.success_url ?? null,
    cancel_url: params.cancel_url ?? null,
    payment_intent: null,
    subscription: null,
    setup_intent: null,
    invoice: null,
    client_secret: null,
    expires_at: (params.expires_at as number | undefined) ?? nowSeconds() + 24 * 3600,
    url: `https://checkout.stripe.com/c/pay/${cs.id}`,
  });
  applyFields(cs, params, ['metadata']);
  return store.put(mode, cs);
}

let accountId: string | null = null;
function account({ mode }: Ctx): StripeObject {
  const acct = fresh('account', mode, (accountId ??= `acct_${randomToken(16)}`));
  delete acct.livemode;
  return acct;
}

function balance({ mode }: Ctx): Answer {
  const b = fixture('balance');
  b.livemode = mode === 'live';
  return { status: 200, body: b };
}

const get =
  (object: string, id: string): Handler =>
  ({ mode, ids, store }) =>
    store.need(mode, ids[id], object);

export const RESOURCE_HANDLERS: Record<string, Handler> = {
  PostProducts: createProduct,
  GetProducts: listProducts,
  GetProductsId: get('product', 'id'),
  PostProductsId: updateProduct,
  PostPrices: createPrice,
  GetPricesPrice: get('price', 'price'),
  PostPricesPrice: updatePrice,
  PostCustomers: createCustomer,
  GetCustomersCustomer: get('customer', 'customer'),
  PostCustomersCustomer: updateCustomer,
  PostSetupIntents: createSetupIntent,
  GetSetupIntentsIntent: get('setup_intent', 'intent'),
  GetPaymentMethodsPaymentMethod: retrievePaymentMethod,
  PostCheckoutSessions: createCheckoutSession,
  GetCheckoutSessionsSession: get('checkout.session', 'session'),
  GetAccount: account,
  GetBalance: balance,
  GetEventsId: get('event', 'id'),
};
