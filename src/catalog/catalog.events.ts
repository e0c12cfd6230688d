import { defineEvents, event } from '../common/outbox/events';
import type { ProductStatus } from './entities/product.entity';

export interface ProductEventPayload {
  id: number;
  slug: string;
  status: ProductStatus;
  version: number;
}

/** A product's sync to the payment processor failed for good in one mode (docs/payments.md). */
export interface ProductProcessorSyncFailedPayload {
  id: number;
  /** The variant whose Stripe objects failed; null: the product's own. */
  variantId: number | null;
  mode: 'test' | 'live';
  error: string;
}

export interface CategoryEventPayload {
  id: number;
  slug: string;
}

/** Events this module writes to the outbox. */
export const CATALOG_EVENTS = defineEvents('catalog', {
  productCreated: event<ProductEventPayload>('product.created', 'A product was created'),
  productUpdated: event<ProductEventPayload>(
    'product.updated',
    'A product changed: its fields, its variants, or its stock (an order or a cancellation)',
  ),
  productDeleted: event<ProductEventPayload>('product.deleted', 'A product and its variants were deleted'),
  productProcessorSyncFailed: event<ProductProcessorSyncFailedPayload>(
    'product.processor_sync_failed',
    'A product could not be synced to the payment processor (Stripe refused, or stayed unreachable): its `processorSync` says why; fix it and re-drive the sync',
  ),
  categoryCreated: event<CategoryEventPayload>('category.created', 'A product category was created'),
  categoryUpdated: event<CategoryEventPayload>('category.updated', 'A product category changed'),
  categoryDeleted: event<CategoryEventPayload>(
    'category.deleted',
    'A product category was deleted; its products stay, without a category',
  ),
});
