import { defineEvents, event } from '../common/outbox/events';
import type { ProductStatus } from './entities/product.entity';

export interface ProductEventPayload {
  id: number;
  slug: string;
  status: ProductStatus;
  version: number;
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
  categoryCreated: event<CategoryEventPayload>('category.created', 'A product category was created'),
  categoryUpdated: event<CategoryEventPayload>('category.updated', 'A product category changed'),
  categoryDeleted: event<CategoryEventPayload>(
    'category.deleted',
    'A product category was deleted; its products stay, without a category',
  ),
});
