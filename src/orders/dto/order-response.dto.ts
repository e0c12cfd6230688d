import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import type { PricedLine } from '../../catalog/catalog.service';
import type { OrderAddress, OrderEntity } from '../entities/order.entity';
import type { OrderLineEntity } from '../entities/order-line.entity';
import type { OrderShipmentEntity } from '../entities/order-shipment.entity';
import type { NotificationOutcome } from '../entities/fulfillment-notification.entity';
import type { FulfillmentSecretEntity } from '../entities/fulfillment-secret.entity';
import { FULFILLMENT_STATUSES, type FulfillmentStatus, PAYMENT_STATUSES, type PaymentStatus } from '../order-status';

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The catalog's tax behaviours, as order lines keep them. */
const TAX_BEHAVIORS: ReadonlyArray<PricedLine['taxBehavior']> = ['exclusive', 'inclusive', 'unspecified'];

export class CustomerResponseDto {
  @ApiProperty({ type: String, nullable: true, example: 'ada@example.com', description: 'null once anonymised' })
  email: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Ada Lovelace' }) name: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) phone: string | null;
}

const ADDRESS_FIELDS = ['name', 'line1', 'line2', 'city', 'region', 'postalCode', 'country', 'phone'] as const;

/** The address as stored, every field present (null when not given); null: none, or anonymised. */
export type AddressResponse = Record<(typeof ADDRESS_FIELDS)[number], string | null>;

/** `AddressResponse | null`, written out: OpenAPI 3.0 has no nullable $ref (as NULLABLE_RECURRING). */
const NULLABLE_ADDRESS: ApiPropertyOptions = {
  type: 'object',
  nullable: true,
  properties: Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, { type: 'string', nullable: true }])),
  required: [...ADDRESS_FIELDS],
  example: {
    name: 'Ada Lovelace',
    line1: '12 Harbour Street',
    line2: null,
    city: 'Bristol',
    region: null,
    postalCode: 'BS1 4DJ',
    country: 'GB',
    phone: null,
  },
};

const NULLABLE_RECURRING: ApiPropertyOptions = {
  type: 'object',
  nullable: true,
  properties: {
    interval: { type: 'string', enum: ['day', 'week', 'month', 'year'] },
    intervalCount: { type: 'integer' },
  },
  required: ['interval', 'intervalCount'],
  example: null,
};

export class OrderLineResponseDto {
  @ApiProperty({ ...ID, example: 31 }) id: number;
  @ApiProperty({ ...ID, example: 7, description: 'The product sold (it may have been deleted since)' })
  productId: number;
  @ApiProperty({ ...ID, nullable: true, example: null }) variantId: number | null;
  @ApiProperty({ example: 'Stoneware mug (M / Blue)', description: 'As the catalog named it then' }) name: string;
  @ApiProperty({ type: String, nullable: true, example: 'MUG-M-BLUE' }) sku: string | null;
  @ApiProperty({ example: 1800, description: 'Minor units, as priced then' }) unitAmount: number;
  @ApiProperty({ example: 2 }) quantity: number;
  @ApiProperty({ example: 3600, description: 'unitAmount × quantity' }) subtotalAmount: number;
  @ApiProperty({ type: String, nullable: true, example: 'standard' }) taxCode: string | null;
  @ApiProperty({ enum: TAX_BEHAVIORS, example: 'exclusive' }) taxBehavior: string;
  @ApiProperty({ example: 2000, description: 'Basis points applied (2000 = 20 %)' }) taxRate: number;
  @ApiProperty({ example: 720 }) taxAmount: number;
  @ApiProperty({ example: 4320, description: 'subtotal + tax when exclusive, the subtotal otherwise' })
  totalAmount: number;
  @ApiProperty(NULLABLE_RECURRING) recurring: { interval: string; intervalCount: number } | null;
  @ApiProperty({ example: 0, description: 'Units shipped or fulfilled so far' }) fulfilledQuantity: number;
}

export class ShipmentLineResponseDto {
  @ApiProperty({ ...ID, example: 31 }) lineId: number;
  @ApiProperty({ example: 1 }) quantity: number;
}

export class ShipmentResponseDto {
  @ApiProperty({ ...ID, example: 5 }) id: number;
  @ApiProperty({ example: 'DHL' }) carrier: string;
  @ApiProperty({ example: 'JD014600003828' }) trackingNumber: string;
  @ApiProperty({ type: String, nullable: true, example: 'https://tracking.example/JD014600003828' })
  trackingUrl: string | null;
  @ApiProperty({ type: [ShipmentLineResponseDto] }) lines: ShipmentLineResponseDto[];
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: "The provider's notification that reported it; null: by PATCH …/fulfillment",
  })
  notificationId: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T00:00:00.000Z' }) createdAt: string;
}

/** An order as lists show it: without its lines and shipments. */
export class OrderSummaryDto {
  @ApiProperty({ ...ID, example: 42 }) id: number;
  @ApiProperty({ example: 1042, description: 'Sequential per site, from 1' }) number: number;
  @ApiProperty({
    ...ID,
    nullable: true,
    example: null,
    description: 'The site user who placed it with their session; null when a key placed it',
  })
  userId: number | null;
  @ApiProperty({ enum: PAYMENT_STATUSES, example: 'pending' }) paymentStatus: PaymentStatus;
  @ApiProperty({ enum: FULFILLMENT_STATUSES, example: 'unfulfilled' }) fulfillmentStatus: FulfillmentStatus;
  @ApiProperty({ type: String, nullable: true, example: null }) processorPaymentId: string | null;
  @ApiProperty({
    enum: ['manual', 'stripe'],
    example: 'manual',
    description:
      'Who collects it: `manual` (the site’s backend records the payment) or `stripe` (a PaymentIntent of the ' +
      'site’s Stripe account, made by POST …/payment-intent; docs/payments.md)',
  })
  paymentProcessor: 'manual' | 'stripe';
  @ApiProperty({
    type: String,
    enum: ['test', 'live', null],
    nullable: true,
    example: null,
    description: 'The Stripe mode its PaymentIntent was made in; null for `manual`',
  })
  paymentMode: 'test' | 'live' | null;
  @ApiProperty({ example: 'EUR' }) currency: string;
  @ApiProperty({ example: 3600, description: 'Minor units: the sum of the lines’ subtotals' }) subtotalAmount: number;
  @ApiProperty({ example: 720, description: 'The sum of the lines’ tax' }) taxAmount: number;
  @ApiProperty({ example: 4320, description: 'The sum of the lines’ totals: what the customer pays' })
  totalAmount: number;
  @ApiProperty({ type: CustomerResponseDto }) customer: CustomerResponseDto;
  @ApiProperty(NULLABLE_ADDRESS) shippingAddress: AddressResponse | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    example: { cartId: 'c_8f2a' },
    description: 'null once anonymised',
  })
  metadata: Record<string, string> | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
  @ApiProperty({ ...DATE_TIME, nullable: true }) paidAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) refundedAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) canceledAt: string | null;
  @ApiProperty({
    ...DATE_TIME,
    nullable: true,
    example: '2026-01-01T00:30:00.000Z',
    description:
      'When an unpaid order stops holding its stock and is canceled (`order.canceled`, reason `expired`); past it, ' +
      'paying is a 409 `order_expired`. null: it does not expire (a key’s order with `keyHoldMinutes` null), or no ' +
      'longer (paid, fulfilled, or canceled by the site). An expired order keeps it',
  })
  expiresAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true, description: 'Account deletion took the customer out' })
  anonymisedAt: string | null;
}

/** One order: with its lines and shipments. */
export class OrderResponseDto extends OrderSummaryDto {
  @ApiProperty({ type: [OrderLineResponseDto] }) lines: OrderLineResponseDto[];
  @ApiProperty({ type: [ShipmentResponseDto] }) shipments: ShipmentResponseDto[];
}

/** What `POST …/orders/fulfillment-notifications` answers, the same for a replay of its id. */
export class NotificationOutcomeDto {
  @ApiProperty({ example: 'ntf_1', description: "The notification's id" }) id: string;
  @ApiProperty({ ...ID, example: 42 }) orderId: number;
  @ApiProperty({ enum: FULFILLMENT_STATUSES, example: 'partially_fulfilled', description: 'After the change' })
  fulfillmentStatus: string;
  @ApiProperty({ ...ID, nullable: true, example: 5, description: 'The shipment it added' })
  shipmentId: number | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T00:00:00.000Z', description: 'When it was first received' })
  receivedAt: string;
}

export class FulfillmentSecretResponseDto {
  @ApiProperty({
    example: 'fsec_Q2hhbmdlIG1lOiB0aGlzIGlzIG5vdCBhIHJlYWwgc2VjcmV0IQ',
    description: 'Signs `x-sitebase-signature` (docs/orders.md); shown only now, keep it',
  })
  secret: string;
  @ApiProperty({
    ...DATE_TIME,
    nullable: true,
    example: '2026-01-02T00:00:00.000Z',
    description: 'Until when the previous secret verifies too; null: there was none',
  })
  previousSecretExpiresAt: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z', description: 'When it was made (rotated)' })
  updatedAt: string;
}

function toAddress(a: OrderAddress | null): AddressResponse | null {
  if (!a) return null;
  return Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, a[f] ?? null])) as AddressResponse;
}

export function toOrderSummary(o: OrderEntity): OrderSummaryDto {
  return {
    id: o.id,
    number: o.number,
    userId: o.userId,
    paymentStatus: o.paymentStatus,
    fulfillmentStatus: o.fulfillmentStatus,
    processorPaymentId: o.processorPaymentId,
    paymentProcessor: o.paymentProcessor,
    paymentMode: o.paymentMode,
    currency: o.currency,
    subtotalAmount: o.subtotalAmount,
    taxAmount: o.taxAmount,
    totalAmount: o.totalAmount,
    customer: { email: o.customerEmail, name: o.customerName, phone: o.customerPhone },
    shippingAddress: toAddress(o.shippingAddress),
    metadata: o.metadata,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
    paidAt: iso(o.paidAt),
    refundedAt: iso(o.refundedAt),
    canceledAt: iso(o.canceledAt),
    expiresAt: iso(o.expiresAt),
    anonymisedAt: iso(o.anonymisedAt),
  };
}

export function toOrderLineResponse(l: OrderLineEntity): OrderLineResponseDto {
  return {
    id: l.id,
    productId: l.productId,
    variantId: l.variantId,
    name: l.name,
    sku: l.sku,
    unitAmount: l.unitAmount,
    quantity: l.quantity,
    subtotalAmount: l.subtotalAmount,
    taxCode: l.taxCode,
    taxBehavior: l.taxBehavior,
    taxRate: l.taxRate,
    taxAmount: l.taxAmount,
    totalAmount: l.totalAmount,
    recurring:
      l.recurringInterval && l.recurringIntervalCount
        ? { interval: l.recurringInterval, intervalCount: l.recurringIntervalCount }
        : null,
    fulfilledQuantity: l.fulfilledQuantity,
  };
}

export function toShipmentResponse(s: OrderShipmentEntity): ShipmentResponseDto {
  return {
    id: s.id,
    carrier: s.carrier,
    trackingNumber: s.trackingNumber,
    trackingUrl: s.trackingUrl,
    lines: s.lines.map((l) => ({ lineId: l.lineId, quantity: l.quantity })),
    notificationId: s.notificationId,
    createdAt: s.createdAt.toISOString(),
  };
}

export function toOrderResponse(view: {
  order: OrderEntity;
  lines: OrderLineEntity[];
  shipments: OrderShipmentEntity[];
}): OrderResponseDto {
  return {
    ...toOrderSummary(view.order),
    lines: view.lines.map(toOrderLineResponse),
    shipments: view.shipments.map(toShipmentResponse),
  };
}

export function toNotificationOutcome(o: NotificationOutcome): NotificationOutcomeDto {
  return {
    id: o.id,
    orderId: o.orderId,
    fulfillmentStatus: o.fulfillmentStatus,
    shipmentId: o.shipmentId,
    receivedAt: o.receivedAt,
  };
}

export function toFulfillmentSecretResponse(s: FulfillmentSecretEntity): FulfillmentSecretResponseDto {
  return {
    secret: s.secret,
    previousSecretExpiresAt: iso(s.previousSecretExpiresAt),
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
