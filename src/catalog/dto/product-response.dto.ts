import { ID, ID_LIST } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import {
  PROCESSOR_SYNC_STATUSES,
  type ProcessorSyncState,
  type ProcessorSyncStatus,
  PRODUCT_STATUSES,
  type ProductStatus,
  ProductEntity,
  TAX_BEHAVIORS,
  type TaxBehavior,
} from '../entities/product.entity';
import { ProductVariantEntity } from '../entities/product-variant.entity';
import { NULLABLE_RECURRING, RecurringDto } from './product.dto';
import { toVariantResponse, VariantResponseDto } from './variant.dto';

/** The product's last sync to the payment processor (docs/payments.md, "Catalog sync"). */
export interface ProcessorSyncDto {
  status: ProcessorSyncStatus;
  /** What Stripe answered when the sync failed; null otherwise. */
  error: string | null;
  at: string | null;
}

/** `ProcessorSyncDto | null`, written out: OpenAPI 3.0 has no nullable $ref (see NULLABLE_RECURRING). */
const NULLABLE_PROCESSOR_SYNC: ApiPropertyOptions = {
  type: 'object',
  nullable: true,
  properties: {
    status: { type: 'string', enum: [...PROCESSOR_SYNC_STATUSES] },
    error: { type: 'string', nullable: true, description: 'What Stripe answered when the sync failed; null otherwise' },
    at: { type: 'string', format: 'date-time', nullable: true, description: 'When the status was set' },
  },
  required: ['status', 'error', 'at'],
};

/** A product as lists show it: every field but its variants. */
export class ProductSummaryDto {
  @ApiProperty({ ...ID, example: 7 }) id: number;
  @ApiProperty({ example: 'Stoneware mug' }) name: string;
  @ApiProperty({ example: 'stoneware-mug' }) slug: string;
  @ApiProperty({ example: '' }) slugPrefix: string;
  @ApiProperty({ example: 'A 350 ml mug, glazed by hand.' }) description: string;
  @ApiProperty({ enum: PRODUCT_STATUSES, example: 'published' }) status: ProductStatus;
  @ApiProperty({ example: 1800, description: 'Minor units of currency' }) unitAmount: number;
  @ApiProperty({ example: 'EUR' }) currency: string;
  @ApiProperty({ example: 0 }) position: number;
  @ApiProperty({ type: 'integer', nullable: true, example: 25, description: 'null: unlimited' })
  quantityAvailable: number | null;
  @ApiProperty({ ...ID, nullable: true, example: 3 }) categoryId: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'standard' }) taxCode: string | null;
  @ApiProperty({ enum: TAX_BEHAVIORS, example: 'exclusive' }) taxBehavior: TaxBehavior;
  @ApiProperty({ ...NULLABLE_RECURRING, example: null }) recurring: RecurringDto | null;
  @ApiProperty({ type: String, nullable: true, example: 'Size' }) option1: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) option2: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) option3: string | null;
  @ApiProperty({ example: 'MUG-350' }) processorDescription: string;
  @ApiProperty({ type: String, nullable: true, example: null }) processorProductIdLive: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) processorProductIdTest: string | null;
  @ApiProperty({
    ...NULLABLE_PROCESSOR_SYNC,
    example: { status: 'synced', error: null, at: '2026-01-01T00:00:05.000Z' },
    description:
      "Its sync to the site's Stripe account: `pending` (queued), `synced` (Stripe has it as it is now) or " +
      '`failed` (re-drive with POST …/products/{id}/processor-sync); null on a site never connected',
  })
  processorSync: ProcessorSyncDto | null;
  @ApiProperty({ ...ID_LIST, example: [12] }) attachmentIds: number[];
  @ApiProperty({ example: 1, description: 'Bumped by every change; the ETag is built from it' }) version: number;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
}

/** One product: with its variants. */
export class ProductResponseDto extends ProductSummaryDto {
  @ApiProperty({ type: [VariantResponseDto] }) variants: VariantResponseDto[];
}

export function toProductSummary(p: ProductEntity): ProductSummaryDto {
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    slugPrefix: p.slugPrefix,
    description: p.description,
    status: p.status,
    unitAmount: p.unitAmount,
    currency: p.currency,
    position: p.position,
    quantityAvailable: p.quantityAvailable,
    categoryId: p.categoryId,
    taxCode: p.taxCode,
    taxBehavior: p.taxBehavior,
    recurring:
      p.recurringInterval && p.recurringIntervalCount
        ? { interval: p.recurringInterval, intervalCount: p.recurringIntervalCount }
        : null,
    option1: p.option1,
    option2: p.option2,
    option3: p.option3,
    processorDescription: p.processorDescription,
    processorProductIdLive: p.processorProductIdLive,
    processorProductIdTest: p.processorProductIdTest,
    processorSync: toProcessorSync(p.processorSync),
    attachmentIds: p.attachmentIds,
    version: p.version,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

function toProcessorSync(s: ProcessorSyncState | null): ProcessorSyncDto | null {
  return s ? { status: s.status, error: s.error ?? null, at: s.at ?? null } : null;
}

export function toProductResponse(p: ProductEntity, variants: ProductVariantEntity[]): ProductResponseDto {
  return { ...toProductSummary(p), variants: variants.map(toVariantResponse) };
}
