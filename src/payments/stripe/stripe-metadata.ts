/**
 * The metadata Sitebase puts on the Stripe objects it makes, so an event names what it is about
 * (docs/payments.md). An object without them is another integration's: its events are `ignored`.
 * Values are strings (Stripe's metadata); ids are checked against the site the event came to.
 */
export const STRIPE_METADATA = {
  site: 'sitebase_site_id',
  product: 'sitebase_product_id',
  variant: 'sitebase_variant_id',
  order: 'sitebase_order_id',
  subscription: 'sitebase_subscription_id',
  entry: 'sitebase_entry_id',
  /** A subscription charge's attempt at its ledger line (1, 2, …): a failure event names which one failed. */
  attempt: 'sitebase_charge_attempt',
  user: 'sitebase_user_id',
} as const;
