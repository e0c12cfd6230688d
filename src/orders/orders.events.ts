import { defineEvents, event } from '../common/outbox/events';
import type { FulfillmentStatus, PaymentStatus } from './order-status';

export interface OrderCreatedPayload {
  id: number;
  number: number;
  currency: string;
  totalAmount: number;
  paymentStatus: PaymentStatus;
  fulfillmentStatus: FulfillmentStatus;
}

export interface OrderPaymentPayload {
  id: number;
  number: number;
  currency: string;
  totalAmount: number;
  processorPaymentId: string | null;
}

export interface OrderFulfillmentPayload {
  id: number;
  number: number;
  fulfillmentStatus: FulfillmentStatus;
  previousFulfillmentStatus: FulfillmentStatus;
  /** The shipment the change added; null for a cancel or a fulfilment without shipment. */
  shipmentId: number | null;
}

/** Why an order was canceled: its hold expired unpaid, or the site (or its provider) canceled it. */
export type CancelReason = 'expired' | 'canceled';

export interface OrderCanceledPayload {
  id: number;
  number: number;
  reason: CancelReason;
}

/**
 * The extension point for recurring products: what a subscription needs of one recurring line
 * of a paid order. The users module creates the customer's subscription from it; it is recorded
 * once per recurring line, so each event is one subscription and `lineId` its key. No address:
 * webhooks carry events out, and the customer is read from the order.
 */
export interface SubscriptionRequestedPayload {
  orderId: number;
  orderNumber: number;
  /** The site user who placed it with their session; null: the users module finds them by the order's address. */
  userId: number | null;
  lineId: number;
  productId: number;
  variantId: number | null;
  quantity: number;
  interval: string;
  intervalCount: number;
  unitAmount: number;
  currency: string;
}

/** Events this module writes to the outbox (docs/events.md, docs/orders.md). */
export const ORDERS_EVENTS = defineEvents('orders', {
  created: event<OrderCreatedPayload>(
    'order.created',
    'An order was placed: its lines priced, its stock taken, its confirmation mail queued',
  ),
  paid: event<OrderPaymentPayload>('order.paid', "An order's payment was recorded: it went from pending to paid"),
  refunded: event<OrderPaymentPayload>('order.refunded', 'A paid order was refunded'),
  fulfillmentUpdated: event<OrderFulfillmentPayload>(
    'order.fulfillment_updated',
    "An order's fulfillment changed: a shipment, the rest fulfilled, or a cancel",
  ),
  canceled: event<OrderCanceledPayload>(
    'order.canceled',
    'An order was canceled and its unfulfilled stock given back: its hold expired unpaid, or the site canceled it',
  ),
  subscriptionRequested: event<SubscriptionRequestedPayload>(
    'order.subscription_requested',
    'A paid order holds a recurring line: a subscription should start for its customer',
  ),
});
