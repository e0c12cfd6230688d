import { createHash } from 'node:crypto';
import Stripe from 'stripe';
import type {
  ProcessorIds,
  ProcessorMode,
  ProductForSync,
  RetiredItem,
  SyncItem,
} from '../../catalog/product-sync.service';
import { describeStripeFailure, StripeFailure } from '../stripe/stripe-clients';
import { STRIPE_METADATA } from '../stripe/stripe-metadata';

/**
 * How a Sitebase product is a Stripe catalog (docs/payments.md, "Catalog sync"): the product and
 * each variant are a Stripe Product with one active Price (Stripe's advice for variations).
 * Prices are immutable: a change of amount, currency, recurring or tax behaviour makes a new
 * Price and deactivates the old one. No `default_price`: a product's Price is ours to archive
 * (Stripe refuses to archive a default price), and orders are paid from Sitebase's own amounts.
 */

/** One request of a sync, keyed by what it does: the same key on every retry of the same version. */
export type IdempotencyKey = (op: string) => string;

/** A Stripe failure of one item in one mode. */
export class ItemSyncError extends Error {
  constructor(
    readonly failure: StripeFailure,
    readonly variantId: number | null,
    readonly mode: ProcessorMode,
  ) {
    super(failure.message);
  }
}

/**
 * The key of one request: the site, the product or variant, the product's version and the mode,
 * so a retried job repeats the same requests (Stripe replays them) and makes nothing twice.
 */
export function idempotencyKeys(
  siteId: number,
  product: { id: number; version: number },
  item: { variantId: number | null },
  mode: ProcessorMode,
): IdempotencyKey {
  const who = item.variantId === null ? `p${product.id}` : `p${product.id}-v${item.variantId}`;
  return (op) => `sitebase-catalog-${siteId}-${who}-r${product.version}-${mode}-${op}`;
}

function metadataOf(siteId: number, productId: number, variantId: number | null): Record<string, string> {
  return {
    [STRIPE_METADATA.site]: String(siteId),
    [STRIPE_METADATA.product]: String(productId),
    ...(variantId === null ? {} : { [STRIPE_METADATA.variant]: String(variantId) }),
  };
}

interface WantedPrice {
  currency: string;
  unit_amount: number;
  tax_behavior: 'exclusive' | 'inclusive' | 'unspecified';
  recurring?: { interval: 'day' | 'week' | 'month' | 'year'; interval_count: number };
}

function wantedPrice(product: ProductForSync, item: SyncItem): WantedPrice {
  return {
    currency: product.currency.toLowerCase(),
    unit_amount: item.unitAmount,
    tax_behavior: product.taxBehavior,
    ...(product.recurring
      ? { recurring: { interval: product.recurring.interval, interval_count: product.recurring.intervalCount } }
      : {}),
  };
}

/** Whether a Stripe Price still sells the item as it is (else a new one is made). */
function sameTerms(price: Stripe.Price, productId: string, wanted: WantedPrice): boolean {
  const product = typeof price.product === 'string' ? price.product : price.product?.id;
  return (
    price.active &&
    product === productId &&
    price.currency === wanted.currency &&
    price.unit_amount === wanted.unit_amount &&
    (price.tax_behavior ?? 'unspecified') === wanted.tax_behavior &&
    (price.recurring?.interval ?? null) === (wanted.recurring?.interval ?? null) &&
    (price.recurring?.interval_count ?? null) === (wanted.recurring?.interval_count ?? null)
  );
}

const isMissing = (err: unknown) => describeStripeFailure(err).code === 'resource_missing';

/**
 * Makes one mode's Stripe match one item: its Product (created, or updated when it has an id:
 * an operator's id links an existing Stripe Product; one Stripe does not know is a failure, never
 * a silent duplicate) and its Price. Answers the ids Stripe holds now.
 */
export async function syncItem(
  stripe: Stripe,
  siteId: number,
  product: ProductForSync,
  item: SyncItem,
  mode: ProcessorMode,
  redrive?: string,
): Promise<ProcessorIds> {
  const key = idempotencyKeys(siteId, product, item, mode);
  // A create is keyed by the version alone: never made twice. An update a re-drive repeats gets
  // keys of its own: Stripe replays a stored answer (a 404 before the operator's fix) for 24 hours.
  const updateKey = key(redrive ? `product-update-${redrive}` : 'product-update');
  const metadata = metadataOf(siteId, product.id, item.variantId);
  const known = item.ids[mode];
  let productId = known.productId;
  if (productId) {
    // '' unsets a description set before; Stripe refuses '' on create.
    await stripe.products.update(
      productId,
      { name: item.name, description: item.description, active: product.active, metadata },
      { idempotencyKey: updateKey },
    );
  } else {
    const created = await stripe.products.create(
      {
        name: item.name,
        ...(item.description ? { description: item.description } : {}),
        active: product.active,
        metadata,
      },
      { idempotencyKey: key('product-create') },
    );
    productId = created.id;
  }
  const wanted = wantedPrice(product, item);
  let current: Stripe.Price | null = null;
  if (known.priceId) {
    try {
      current = await stripe.prices.retrieve(known.priceId);
    } catch (err) {
      if (!isMissing(err)) throw err; // a Price Stripe does not know (another account's): a new one
    }
  }
  if (current && sameTerms(current, productId, wanted)) return { productId, priceId: current.id };
  const price = await stripe.prices.create(
    { product: productId, ...wanted, metadata },
    { idempotencyKey: key('price-create') },
  );
  if (current?.active)
    await stripe.prices.update(current.id, { active: false }, { idempotencyKey: key(`price-retire-${current.id}`) });
  return { productId, priceId: price.id };
}

/**
 * Deactivates the Stripe objects of a deleted product or variant (Stripe keeps a Product that has
 * Prices: it is archived, not deleted). An object Stripe no longer knows is done with.
 */
export async function retireItem(stripe: Stripe, siteId: number, item: RetiredItem): Promise<void> {
  const key = (id: string) => `sitebase-catalog-${siteId}-retire-${id}`;
  const calls: Array<() => Promise<unknown>> = [];
  if (item.ids.productId) {
    const id = item.ids.productId;
    calls.push(() => stripe.products.update(id, { active: false }, { idempotencyKey: key(id) }));
  }
  if (item.ids.priceId) {
    const id = item.ids.priceId;
    calls.push(() => stripe.prices.update(id, { active: false }, { idempotencyKey: key(id) }));
  }
  for (const call of calls)
    try {
      await call();
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
}

/**
 * A digest of what Stripe is told of a product in these modes (ids included: an operator's
 * new id is a change). A write that leaves it equal (stock taken by an order) syncs nothing.
 */
export function digestOf(product: ProductForSync, modes: ProcessorMode[]): string {
  const view = {
    modes: [...modes].sort(),
    active: product.active,
    currency: product.currency,
    taxBehavior: product.taxBehavior,
    recurring: product.recurring,
    items: product.items.map((i) => [i.variantId, i.name, i.description, i.unitAmount, i.ids.test, i.ids.live]),
  };
  return createHash('sha256').update(JSON.stringify(view)).digest('base64url').slice(0, 32);
}

/**
 * What an operator reads in `processorSync.error` and the failure event: Stripe's code and
 * message. Stripe's answers to a refused key name a masked part of it: those get words of ours.
 */
export function failureText(f: StripeFailure, mode: ProcessorMode): string {
  if (f.status === 401 || f.type === 'StripeAuthenticationError')
    return `Stripe refused the site's ${mode} key (401): connect the site again with a valid key`;
  if (f.status === 403 || f.type === 'StripePermissionError')
    return `The site's ${mode} key may not write Products and Prices (403): give the restricted key those permissions`;
  return `${f.code ?? f.type}: ${f.message}`;
}
