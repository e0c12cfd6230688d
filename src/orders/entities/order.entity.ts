import { Check, Column, CreateDateColumn, Entity, Index, UpdateDateColumn } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';
import { idTransformer } from '../../database/id.transformer';
import type { FulfillmentStatus, PaymentStatus } from '../order-status';

/** Where an order ships to; every field as the buyer gave it (docs/orders.md). */
export interface OrderAddress {
  name?: string;
  line1: string;
  line2?: string;
  city: string;
  region?: string;
  postalCode?: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  phone?: string;
}

/**
 * One order of a site (docs/orders.md). Orders are kept for accounting when their account is
 * deleted (anonymised, API.md §8), so `site_id` and `account_id` are plain columns without a
 * foreign key: no cascade reaches them when the site and the account go.
 */
@Check('orders_amounts_check', `((subtotal_amount >= 0) AND (tax_amount >= 0) AND (total_amount >= 0))`)
@Check(
  'orders_fulfillment_status_check',
  `(fulfillment_status = ANY (ARRAY['unfulfilled'::text, 'partially_fulfilled'::text, 'fulfilled'::text, 'canceled'::text]))`,
)
@Check('orders_payment_mode_check', `(payment_mode = ANY (ARRAY['test'::text, 'live'::text]))`)
@Check('orders_payment_processor_check', `(payment_processor = ANY (ARRAY['manual'::text, 'stripe'::text]))`)
@Check('orders_payment_status_check', `(payment_status = ANY (ARRAY['pending'::text, 'paid'::text, 'refunded'::text]))`)
@Entity('orders')
@Index('orders_site_id_number_key', ['siteId', 'number'], { unique: true })
// Lists: newest first, all orders, by customer, by fulfillment status; the purge by account.
@Index('orders_site_id_created_at_id_idx', ['siteId', 'createdAt', 'id'])
@Index('orders_site_id_customer_email_created_at_id_idx', ['siteId', 'customerEmail', 'createdAt', 'id'])
@Index('orders_site_id_fulfillment_status_created_at_id_idx', ['siteId', 'fulfillmentStatus', 'createdAt', 'id'])
@Index('orders_account_id_idx', ['accountId'])
// A signed-in user's own orders, newest first.
@Index('orders_site_id_user_id_created_at_id_idx', ['siteId', 'userId', 'createdAt', 'id'], {
  where: 'user_id IS NOT NULL',
})
// A site user's holds: their unpaid orders that hold stock, or held it until their expiry (the
// hold limits and the cool-down, docs/orders.md, "Reservations"); paid ones and a site's cancels are not in it.
@Index('orders_site_id_user_id_expires_at_idx', ['siteId', 'userId', 'expiresAt'], {
  where: `"user_id" IS NOT NULL AND "payment_status" = 'pending' AND ("fulfillment_status" IN ('unfulfilled', 'partially_fulfilled') OR "expires_at" IS NOT NULL)`,
})
// The expiry sweep: unpaid open orders with a hold, by when it ends (docs/orders.md, "Reservations").
@Index('orders_expires_at_idx', ['expiresAt'], {
  where: `"expires_at" IS NOT NULL AND "payment_status" = 'pending' AND "fulfillment_status" IN ('unfulfilled', 'partially_fulfilled')`,
})
// A processor's events name its payment, not the order (docs/payments.md, "Orders").
@Index('orders_site_id_processor_payment_id_idx', ['siteId', 'processorPaymentId'], {
  where: '"processor_payment_id" IS NOT NULL',
})
export class OrderEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @RefColumn() accountId: number;
  /** The site user who placed it with their session; null when a key placed it. */
  @RefColumn({ nullable: true }) userId: number | null;
  /** Sequential per site from 1, without gaps (taken in the order's transaction). */
  @Column({ type: 'integer' }) number: number;
  @Column({ type: 'text', default: 'pending' }) paymentStatus: PaymentStatus;
  @Column({ type: 'text', default: 'unfulfilled' }) fulfillmentStatus: FulfillmentStatus;
  @Column({ type: 'text', nullable: true }) processorPaymentId: string | null;
  /** Who collects it: `manual` (the site's backend records it) or `stripe` (a PaymentIntent of the site's account, docs/payments.md). */
  @Column({ type: 'text', default: 'manual' }) paymentProcessor: 'manual' | 'stripe';
  /** The Stripe mode its PaymentIntent was made in; null for `manual`. */
  @Column({ type: 'text', nullable: true }) paymentMode: 'test' | 'live' | null;
  @Column({ type: 'text' }) currency: string;
  /** Integer minor units of `currency`: the sums of the lines'. */
  @Column({ type: 'bigint', transformer: idTransformer }) subtotalAmount: number;
  @Column({ type: 'bigint', transformer: idTransformer }) taxAmount: number;
  @Column({ type: 'bigint', transformer: idTransformer }) totalAmount: number;
  /** Lower case; null once anonymised. */
  @Column({ type: 'text', nullable: true }) customerEmail: string | null;
  @Column({ type: 'text', nullable: true }) customerName: string | null;
  @Column({ type: 'text', nullable: true }) customerPhone: string | null;
  @Column({ type: 'jsonb', nullable: true }) shippingAddress: OrderAddress | null;
  /** The integration's own keys and string values; null once anonymised. */
  @Column({ type: 'jsonb', nullable: true }) metadata: Record<string, string> | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) paidAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) refundedAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) canceledAt: Date | null;
  /**
   * When an unpaid order's stock hold ends and it is canceled; null when it does not expire (a key's
   * order with `keyHoldMinutes` null) and once paid, fulfilled or canceled by the site. An order
   * canceled by its expiry keeps it.
   */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) expiresAt: Date | null;
  /** When account deletion took the customer's data out. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) anonymisedAt: Date | null;
}
