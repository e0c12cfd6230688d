import type { OrderHolds } from '../common/tenancy/site-settings';
import type { FulfillmentStatus, PaymentStatus } from './order-status';

/**
 * Stock reservations (docs/orders.md, "Reservations"), as pure rules: an unpaid order holds its
 * stock until `expiresAt`; past it, it can no longer be paid and the expiry job cancels it.
 */

/** Who placed an order: a site user's session, or a key (the site's backend). */
export type PlacedWith = 'session' | 'key';

const MINUTE_MS = 60_000;

/** When an order placed at `now` stops holding its stock; null: it holds it until paid or canceled. */
export function expiryOf(holds: OrderHolds, placedWith: PlacedWith, now: Date): Date | null {
  const minutes = placedWith === 'session' ? holds.sessionHoldMinutes : holds.keyHoldMinutes;
  return minutes === null ? null : new Date(now.getTime() + minutes * MINUTE_MS);
}

export interface HeldOrder {
  paymentStatus: PaymentStatus;
  fulfillmentStatus: FulfillmentStatus;
  expiresAt: Date | null;
}

/**
 * Unpaid, not fulfilled, at or past its `expiresAt` (canceled by the expiry, or not yet): it cannot
 * be paid any more. A site's own cancel, a payment and a full fulfilment clear `expiresAt`.
 */
export function isExpired(order: HeldOrder, now: Date): boolean {
  return (
    order.paymentStatus === 'pending' &&
    order.fulfillmentStatus !== 'fulfilled' &&
    order.expiresAt !== null &&
    order.expiresAt.getTime() <= now.getTime()
  );
}

/**
 * Expired and nothing shipped: the expiry cancels it now. A shipment ends the hold (the site chose
 * to ship before payment), so a partially fulfilled order is never canceled by its expiry.
 */
export function isDueForExpiry(order: HeldOrder, now: Date): boolean {
  return isExpired(order, now) && order.fulfillmentStatus === 'unfulfilled';
}

/**
 * A unit of stock as the catalog keeps it: a product, or one of its variants (their stock is
 * the variant's). The hold limits and the cool-down count by item.
 */
export interface StockItem {
  productId: number;
  variantId: number | null;
}

/** What a site user holds of an item: units of their unpaid orders still in hold, and their last hold of it that expired. */
export interface HeldItem extends StockItem {
  held: number;
  /** The latest `expiresAt` of their orders of it that expired unpaid within the cool-down; null: none. */
  expiredAt: Date | null;
}

/** An item a new order asks for: its lines of it together. */
export interface WantedItem extends StockItem {
  name: string;
  quantity: number;
}

/** Why a site user's order may not hold what it asks for (a 409 each). */
export type HoldRefusal =
  | { code: 'hold_limit_exceeded'; detail: string }
  | { code: 'hold_cooldown'; detail: string; retryAfterSeconds: number };

export function stockKey(item: StockItem): string {
  return `${item.productId}:${item.variantId ?? ''}`;
}

/** Since when an expired hold still keeps its buyer from the item: `now` less the cool-down. */
export function cooldownStart(holds: OrderHolds, now: Date): Date {
  return new Date(now.getTime() - holds.holdCooldownMinutes * MINUTE_MS);
}

/** The lines of an order by item, in the order they first appear: the same product on several lines is one item. */
export function wantedItems(lines: ReadonlyArray<StockItem & { name: string; quantity: number }>): WantedItem[] {
  const byItem = new Map<string, WantedItem>();
  for (const l of lines) {
    const found = byItem.get(stockKey(l));
    if (found) found.quantity += l.quantity;
    else
      byItem.set(stockKey(l), { productId: l.productId, variantId: l.variantId, name: l.name, quantity: l.quantity });
  }
  return [...byItem.values()];
}

/**
 * Whether a site user may hold what a new order asks for, given what they hold (both of items whose
 * stock is counted: unlimited stock is held by nobody). Per item, in the order's order: a hold of
 * it that expired less than `holdCooldownMinutes` ago, then more than `maxHeldPerProduct` units
 * with what they hold; then more than `maxHeldPerUser` units in all. Null: it may.
 */
export function holdRefusal(holds: OrderHolds, held: HeldItem[], wanted: WantedItem[], now: Date): HoldRefusal | null {
  const heldOf = new Map(held.map((h) => [stockKey(h), h]));
  for (const item of wanted) {
    const h = heldOf.get(stockKey(item));
    const until = h?.expiredAt ? h.expiredAt.getTime() + holds.holdCooldownMinutes * MINUTE_MS : 0;
    if (until > now.getTime())
      return {
        code: 'hold_cooldown',
        detail:
          `Your unpaid order of ${item.name} expired at ${h!.expiredAt!.toISOString()}; you may order it again ` +
          `from ${new Date(until).toISOString()} (${holds.holdCooldownMinutes} minutes later)`,
        retryAfterSeconds: Math.ceil((until - now.getTime()) / 1000),
      };
    const already = h?.held ?? 0;
    if (already + item.quantity > holds.maxHeldPerProduct)
      return {
        code: 'hold_limit_exceeded',
        detail:
          `You may hold at most ${holds.maxHeldPerProduct} of ${item.name} in unpaid orders; ` +
          `you hold ${already} and ask for ${item.quantity}`,
      };
  }
  const total = held.reduce((n, h) => n + h.held, 0);
  const asked = wanted.reduce((n, w) => n + w.quantity, 0);
  if (total + asked > holds.maxHeldPerUser)
    return {
      code: 'hold_limit_exceeded',
      detail:
        `You may hold at most ${holds.maxHeldPerUser} units in all your unpaid orders; ` +
        `you hold ${total} and ask for ${asked}`,
    };
  return null;
}
