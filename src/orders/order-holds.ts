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
