/**
 * What a site keeps beside its name and title, one typed section per module; a field left out
 * (or null) falls back to the configuration. New sections are added here, in the module's
 * `dto/<module>-settings.dto.ts` and in SiteSettingsDto (src/account/dto/site.dto.ts), validated
 * like any input: never a free JSON bag.
 */
export interface SiteSettings {
  /** Origin of the links in this site's mail (confirm, unsubscribe, tracking); else PUBLIC_BASE_URL. */
  publicBaseUrl?: string;
  email?: EmailSettings;
  contacts?: ContactsSettings;
  orders?: OrdersSettings;
  newsletter?: NewsletterSettings;
  subscriptions?: SubscriptionsSettings;
}

/** The sender of the site's mail (docs/email.md); unset fields come from MAIL_FROM. */
export interface EmailSettings {
  fromName?: string;
  fromAddress?: string;
  replyTo?: string;
  /** Soft bounces within softBounceWindowDays that mark an address bounced (absent: BOUNCE_SOFT_LIMIT; docs/deliverability.md). */
  softBounceLimit?: number;
  softBounceWindowDays?: number;
}

/** The contact inbox (docs/contacts.md): who is told of each new message; none, no mail. */
export interface ContactsSettings {
  notifyEmails?: string[];
}

/**
 * Tax of the site's orders (docs/orders.md): rates in basis points (1 % = 100), keyed by the
 * products' `taxCode`; `defaultTaxRate` for a taxed product whose code has no rate (absent: 0).
 */
export interface OrdersSettings {
  taxRates?: Record<string, number>;
  defaultTaxRate?: number;
  /** Minutes an unpaid order placed with a site user's session holds its stock (absent: 30). */
  sessionHoldMinutes?: number;
  /** Minutes an unpaid order placed with a key holds its stock (absent: 1440); null: until paid or canceled. */
  keyHoldMinutes?: number | null;
  /** Unpaid, open orders a site user may have at once (absent: 5). */
  maxPendingPerUser?: number;
  /** Units of one stock item (a product, or a variant where stock is kept) a site user may hold unpaid (absent: 10). */
  maxHeldPerProduct?: number;
  /** Units of stock a site user may hold unpaid over all their orders (absent: 50). */
  maxHeldPerUser?: number;
  /** Minutes after a site user's hold of an item expired before they may hold it again (absent: 10; 0: none). */
  holdCooldownMinutes?: number;
}

/** The bounds of the orders' hold settings: a week at most, 100 pending orders at most. */
export const MAX_HOLD_MINUTES = 10_080;
export const MAX_PENDING_PER_USER = 100;
/** The bound of the units a site user may hold (per item and in all): a million. */
export const MAX_HELD_UNITS = 1_000_000;

/** How long unpaid orders hold their stock, and how many orders and units a site user may have pending (docs/orders.md). */
export interface OrderHolds {
  sessionHoldMinutes: number;
  /** null: a key's orders never expire. */
  keyHoldMinutes: number | null;
  maxPendingPerUser: number;
  /** Units of stock a site user may hold unpaid: of one item, and in all (docs/orders.md, "Reservations"). */
  maxHeldPerProduct: number;
  maxHeldPerUser: number;
  /** 0: a site user may hold again at once what they let expire. */
  holdCooldownMinutes: number;
}

/** The site's hold settings with the defaults for what it did not set. */
export function orderHolds(orders: OrdersSettings | undefined): OrderHolds {
  return {
    sessionHoldMinutes: orders?.sessionHoldMinutes ?? 30,
    keyHoldMinutes: orders?.keyHoldMinutes === undefined ? 1440 : orders.keyHoldMinutes,
    maxPendingPerUser: orders?.maxPendingPerUser ?? 5,
    maxHeldPerProduct: orders?.maxHeldPerProduct ?? 10,
    maxHeldPerUser: orders?.maxHeldPerUser ?? 50,
    holdCooldownMinutes: orders?.holdCooldownMinutes ?? 10,
  };
}

/**
 * Settings whose null is a value rather than "clear the field" (`section.field`): a key order's
 * hold of null means "until paid or canceled"; sending the default (1440) restores it.
 */
export const NULL_IS_A_VALUE: ReadonlySet<string> = new Set(['orders.keyHoldMinutes']);

/**
 * The newsletter audience (docs/newsletter.md): where a browser goes after confirming (absent: a
 * page in the site's name), and whether a deleted subscriber's address stays blocked from
 * re-import (kept as a hash).
 */
export interface NewsletterSettings {
  confirmRedirectUrl?: string;
  suppressOnDelete?: boolean;
  /** Campaign mails a minute at most (absent: NEWSLETTER_SEND_RATE_PER_MINUTE). */
  sendRatePerMinute?: number;
}

/**
 * Site users' subscriptions (docs/users.md, "Subscriptions"): the dunning window, the days a
 * `past_due` subscription waits for its unpaid period charge before it is canceled (`unpaid`),
 * whatever its period's length (absent: 14).
 */
export interface SubscriptionsSettings {
  dunningDays?: number;
}

/** The bounds of the dunning window: a day to two months (Stripe's longest retry schedule). */
export const MIN_DUNNING_DAYS = 1;
export const MAX_DUNNING_DAYS = 60;
export const DEFAULT_DUNNING_DAYS = 14;

/** The site's dunning window in days, the default for a site that did not set it. */
export function dunningDays(subscriptions: SubscriptionsSettings | undefined): number {
  return subscriptions?.dunningDays ?? DEFAULT_DUNNING_DAYS;
}
