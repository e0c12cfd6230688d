import { ID, ID_LIST } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { SITE_NAME_PATTERN } from '../../common/auth/principal';
import { ValidationProblem } from '../../common/errors/problems';
import { IsIdParam, IsIdSet, MAX_ID, OptionalNotNull } from '../../common/input/dto-rules';
import { isCurrency, toMajorUnits, toMinorUnits } from '../../common/money/money';
import { SLUG_PREFIX_MESSAGE, SLUG_PREFIX_PATTERN } from '../../common/slugs/slugs';
import { IsCurrency, MAX_AMOUNT, MAX_STOCK, UpdateProductDto } from '../../catalog/dto/product.dto';
import type { CreateVariantDto } from '../../catalog/dto/variant.dto';
import type { ProductView } from '../../catalog/products.service';
import type { MediaView } from '../../media/media.service';
import { toV1MediaItem, V1MediaItemDto } from './v1-media.dto';
import { declareSchemaRule } from '../../common/openapi/openapi-rules';
import { Checked } from '../../common/input/checked';

const TAX_BEHAVIORS = ['exclusive', 'inclusive', 'unspecified'] as const;
const INTERVALS = ['day', 'week', 'month', 'year'] as const;

/** v1 `recurring`: an interval (`"month"`), `{ interval, interval_count }`, or null for a one-off. */
export class V1RecurringDto {
  @ApiProperty({ enum: INTERVALS, example: 'month' }) @IsIn(INTERVALS) interval: (typeof INTERVALS)[number];
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 365, example: 1 })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(365)
  interval_count?: number;
}

declareSchemaRule('isV1Recurring', {
  described: 'null, an interval (`day`, `week`, `month`, `year`) or `{ interval, interval_count }`.',
});

const IsV1Recurring = () =>
  ValidateBy({
    name: 'isV1Recurring',
    validator: {
      validate: (value: unknown) =>
        value === null ||
        (typeof value === 'string' && (INTERVALS as readonly string[]).includes(value)) ||
        (typeof value === 'object' && !Array.isArray(value)),
      defaultMessage: () => 'must be null, an interval (day, week, month, year) or { interval, interval_count }',
    },
  });

const OPTION = { type: String, nullable: true, maxLength: 100 } as const;

/** INTERFACE.md §2.3 update fields, all optional. `price` (major units) and `unit_amount` (minor) are one amount. */
export class V1ProductFieldsDto {
  @ApiPropertyOptional({ example: 'Stoneware mug', description: 'The name' })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  product?: string;
  @ApiPropertyOptional({ example: 'stoneware-mug' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(200)
  slug?: string;
  @ApiPropertyOptional({ example: 'shop' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(60)
  @Matches(SLUG_PREFIX_PATTERN, { message: SLUG_PREFIX_MESSAGE })
  slug_prefix?: string;
  @ApiPropertyOptional({ example: 'A 350 ml mug.' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(20_000)
  description?: string;
  @Checked(
    'other fields',
    'In major units, with no more decimals than the currency has; agrees with `unit_amount` when both are given.',
  )
  @ApiPropertyOptional({ example: 18, description: 'Major units (18.5 EUR); the same amount as unit_amount' })
  @OptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(MAX_AMOUNT)
  price?: number;
  @Checked('other fields', 'In minor units; agrees with `price` when both are given.')
  @ApiPropertyOptional({ type: 'integer', example: 1800, description: 'Minor units (cents)' })
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(MAX_AMOUNT)
  unit_amount?: number;
  @ApiPropertyOptional({ example: 'EUR' }) @OptionalNotNull() @IsCurrency() currency?: string;
  @ApiPropertyOptional({ type: 'integer', example: 0, description: 'Position in lists' })
  @OptionalNotNull()
  @IsInt()
  @Min(-1_000_000_000)
  @Max(1_000_000_000)
  order?: number;
  @ApiPropertyOptional({ type: 'integer', nullable: true, example: 25, description: 'null: unlimited' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_STOCK)
  quantity_available?: number | null;
  @ApiPropertyOptional({ ...ID, nullable: true, example: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Checked('stored data', 'Names a product category of this site.')
  @Max(MAX_ID)
  product_category_id?: number | null;
  @ApiPropertyOptional({ type: String, nullable: true, example: 'standard', description: 'The tax code' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  tax?: string | null;
  @ApiPropertyOptional({ enum: TAX_BEHAVIORS }) @OptionalNotNull() @IsIn(TAX_BEHAVIORS) tax_behavior?: string;
  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', enum: [...INTERVALS, null], nullable: true },
      { $ref: '#/components/schemas/V1RecurringDto' },
    ],
    description: 'An interval, `{ interval, interval_count }`, or null for a one-off',
  })
  @IsOptional()
  @IsV1Recurring()
  recurring?: string | V1RecurringDto | null;
  @ApiPropertyOptional({ ...OPTION, example: 'Size' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  option1?: string | null;
  @ApiPropertyOptional({ ...OPTION, example: null })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  option2?: string | null;
  @ApiPropertyOptional({ ...OPTION, example: null })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  option3?: string | null;
  @ApiPropertyOptional({ example: 'MUG-350' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(500)
  processor_description?: string;
  @Checked('stored data', 'Each id names a media item of this site.')
  @ApiPropertyOptional({ ...ID_LIST, description: 'Media ids of the site' })
  @OptionalNotNull()
  @IsIdSet()
  attachment_ids?: number[];
  @ApiPropertyOptional({ description: 'true replaces the attachments, false (or absent) adds to them' })
  @OptionalNotNull()
  @IsBoolean()
  replace_attachments?: boolean;
}

export class V1UpdateProductDto extends V1ProductFieldsDto {
  // Its own example: the create's slug is taken once the create example ran; the demo's product 1 keeps its own.
  @ApiPropertyOptional({ example: 'monthly-membership' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(200)
  declare slug?: string;
}

/** The `variant` object of `PUT …/variant`: option names and values, and the variant's own price, stock, SKU. */
export class V1VariantInputDto {
  @Checked('stored data', "Agrees with the product's option1 once it has one.")
  @ApiPropertyOptional({
    ...OPTION,
    example: 'Size',
    description: "The option's name (sets the product's when it has none)",
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  option1?: string | null;
  @ApiPropertyOptional({ ...OPTION, example: 'M' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  option1_value?: string | null;
  @Checked('stored data', "Agrees with the product's option2 once it has one.")
  @ApiPropertyOptional({ ...OPTION, example: null })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  option2?: string | null;
  @ApiPropertyOptional({ ...OPTION, example: null })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  option2_value?: string | null;
  @Checked('stored data', "Agrees with the product's option3 once it has one.")
  @ApiPropertyOptional({ ...OPTION, example: null })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  option3?: string | null;
  @ApiPropertyOptional({ ...OPTION, example: null })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  option3_value?: string | null;
  @Checked(
    'other fields',
    'In major units, with no more decimals than the currency has; agrees with `unit_amount` when both are given.',
  )
  @ApiPropertyOptional({ example: 20, description: "Major units; absent: the product's price" })
  @OptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(MAX_AMOUNT)
  price?: number;
  @Checked('other fields', 'In minor units; agrees with `price` when both are given.')
  @ApiPropertyOptional({ type: 'integer', example: 2000 })
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(MAX_AMOUNT)
  unit_amount?: number;
  @ApiPropertyOptional({ type: 'integer', nullable: true, example: 10 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_STOCK)
  quantity_available?: number | null;
  @ApiPropertyOptional({ type: String, nullable: true, example: 'MUG-350-M' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  sku?: string | null;
}

export class V1CreateVariantDto extends V1ProductFieldsDto {
  // The product's fields change the product named in the path (the demo's 1): its own slug, not the create's.
  @ApiPropertyOptional({ example: 'monthly-membership' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(200)
  declare slug?: string;

  @ApiProperty({ type: V1VariantInputDto })
  @IsObject()
  @ValidateNested()
  @Type(() => V1VariantInputDto)
  variant: V1VariantInputDto;
}

export class V1VariantDto {
  @ApiProperty({ ...ID, example: 5 }) variant_id: number;
  @ApiProperty({ type: String, nullable: true, example: 'Size' }) option1: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'M' }) option1_value: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) option2: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) option2_value: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) option3: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) option3_value: string | null;
  @ApiProperty({ example: 20 }) price: number;
  @ApiProperty({ example: 2000 }) unit_amount: number;
  @ApiProperty({ type: 'integer', nullable: true, example: 10 }) quantity_available: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'MUG-350-M' }) sku: string | null;
  @ApiProperty({ example: '', description: 'Its own payment processor live product id; "" when unset' })
  processor_product_id_live: string;
  @ApiProperty({ example: '', description: 'Its own payment processor test product id; "" when unset' })
  processor_product_id_test: string;
}

/** INTERFACE.md §2.3, field for field, with `variants`. */
export class V1ProductResponseDto {
  @ApiProperty({ ...ID, example: 7 }) product_id: number;
  @ApiProperty({ example: 'Stoneware mug' }) product: string;
  @ApiProperty({ example: 'stoneware-mug' }) slug: string;
  @ApiProperty({ example: 'A 350 ml mug.' }) description: string;
  @ApiProperty({ example: 18, description: 'Major units' }) price: number;
  @ApiProperty({ example: 1800, description: 'Minor units' }) unit_amount: number;
  @ApiProperty({ example: 'EUR' }) currency: string;
  @ApiProperty({ example: 0 }) order: number;
  @ApiProperty({ type: 'integer', nullable: true, example: 25, description: 'null: unlimited' })
  quantity_available: number | null;
  @ApiProperty({ ...ID, nullable: true, example: 3 }) product_category_id: number | null;
  @ApiProperty({ example: '' }) processor_description: string;
  // Strings as the v1 interface types them (a legacy client calls string methods on them): "" when unset.
  @ApiProperty({ example: '', description: 'The payment processor’s live product id; "" when unset' })
  processor_product_id_live: string;
  @ApiProperty({ example: '', description: 'The payment processor’s test product id; "" when unset' })
  processor_product_id_test: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) product_date: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) product_modified: string;
  @ApiProperty({ type: [V1MediaItemDto] }) media: V1MediaItemDto[];
  @ApiProperty({ type: [V1VariantDto] }) variants: V1VariantDto[];
}

/** INTERFACE.md §2.4. */
export class V1ProductCategoryResponseDto {
  @ApiProperty({ ...ID, example: 3 }) category_id: number;
  @ApiProperty({ example: 'Mugs' }) category: string;
  @ApiProperty({ example: 'demo' }) site_name: string;
  @ApiProperty({ example: 'mugs' }) slug: string;
  @ApiProperty({ example: '' }) slug_prefix: string;
  @ApiProperty({ example: '' }) description: string;
  @ApiProperty({ type: [V1MediaItemDto] }) media: V1MediaItemDto[];
  @ApiProperty({ type: [V1ProductResponseDto] }) products: V1ProductResponseDto[];
}

export class V1ProductParamDto {
  @ApiProperty({ example: 'demo' })
  @IsString()
  @Matches(SITE_NAME_PATTERN, { message: 'is not a valid site name' })
  site_name: string;
  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 1 })
  @IsIdParam()
  product_id: number;
}

export class V1ProductCategoryParamDto {
  @ApiProperty({ example: 'demo' })
  @IsString()
  @Matches(SITE_NAME_PATTERN, { message: 'is not a valid site name' })
  site_name: string;
  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 1 })
  @IsIdParam()
  product_category_id: number;
}

/**
 * One amount from `price` (major units) and/or `unit_amount` (minor units) of `currency`
 *: either alone, or both when they agree; a 400 names the field otherwise.
 */
export function amountOf(
  body: { price?: number; unit_amount?: number },
  currency: string,
  path = '',
): number | undefined {
  const fromPrice = body.price === undefined ? undefined : toMinorUnits(body.price, currency);
  if (body.price !== undefined && fromPrice === null)
    throw new ValidationProblem([{ path: `${path}price`, message: `has more decimals than ${currency} has` }]);
  if (fromPrice !== undefined && body.unit_amount !== undefined && fromPrice !== body.unit_amount)
    throw new ValidationProblem([
      {
        path: `${path}unit_amount`,
        message: `is ${body.unit_amount}, but price ${body.price} is ${fromPrice} in ${currency}`,
      },
    ]);
  return body.unit_amount ?? fromPrice ?? undefined;
}

/** The v2 update a v1 body means (the amount in the currency it names, or the product's). */
export function toUpdateProductInput(body: V1ProductFieldsDto, currentCurrency: string): UpdateProductDto {
  const currency = body.currency ?? currentCurrency;
  if (!isCurrency(currency)) throw new ValidationProblem([{ path: 'currency', message: 'is not a currency' }]);
  const recurring =
    body.recurring === undefined
      ? undefined
      : body.recurring === null
        ? null
        : typeof body.recurring === 'string'
          ? { interval: body.recurring as (typeof INTERVALS)[number], intervalCount: 1 }
          : { interval: body.recurring.interval, intervalCount: body.recurring.interval_count ?? 1 };
  return {
    name: body.product,
    slug: body.slug,
    slugPrefix: body.slug_prefix,
    description: body.description,
    unitAmount: amountOf(body, currency),
    currency: body.currency,
    position: body.order,
    quantityAvailable: body.quantity_available,
    categoryId: body.product_category_id,
    taxCode: body.tax,
    taxBehavior: body.tax_behavior as UpdateProductDto['taxBehavior'],
    recurring,
    option1: body.option1,
    option2: body.option2,
    option3: body.option3,
    processorDescription: body.processor_description,
    attachmentIds: body.attachment_ids,
  };
}

/** The v2 variant a v1 `variant` object means, in the product's currency. */
export function toCreateVariantInput(variant: V1VariantInputDto, currency: string): CreateVariantDto {
  return {
    option1Value: variant.option1_value,
    option2Value: variant.option2_value,
    option3Value: variant.option3_value,
    unitAmount: amountOf(variant, currency, 'variant.'),
    quantityAvailable: variant.quantity_available,
    sku: variant.sku,
  };
}

export function toV1Product({ product: p, variants }: ProductView, media: MediaView[]): V1ProductResponseDto {
  return {
    product_id: p.id,
    product: p.name,
    slug: p.slug,
    description: p.description,
    price: toMajorUnits(p.unitAmount, p.currency),
    unit_amount: p.unitAmount,
    currency: p.currency,
    order: p.position,
    quantity_available: p.quantityAvailable,
    product_category_id: p.categoryId,
    processor_description: p.processorDescription,
    processor_product_id_live: p.processorProductIdLive ?? '',
    processor_product_id_test: p.processorProductIdTest ?? '',
    product_date: p.createdAt.toISOString(),
    product_modified: p.updatedAt.toISOString(),
    media: media.map(toV1MediaItem),
    variants: variants.map((v) => {
      const amount = v.unitAmount ?? p.unitAmount;
      return {
        variant_id: v.id,
        option1: p.option1,
        option1_value: v.option1Value,
        option2: p.option2,
        option2_value: v.option2Value,
        option3: p.option3,
        option3_value: v.option3Value,
        price: toMajorUnits(amount, p.currency),
        unit_amount: amount,
        quantity_available: v.quantityAvailable,
        sku: v.sku,
        processor_product_id_live: v.processorProductIdLive ?? '',
        processor_product_id_test: v.processorProductIdTest ?? '',
      };
    }),
  };
}

export function toV1ProductCategory(
  site: { name: string },
  c: {
    category: { id: number; name: string; slug: string; slugPrefix: string; description: string };
    media: MediaView[];
    products: Array<{ view: ProductView; media: MediaView[] }>;
  },
): V1ProductCategoryResponseDto {
  return {
    category_id: c.category.id,
    category: c.category.name,
    site_name: site.name,
    slug: c.category.slug,
    slug_prefix: c.category.slugPrefix,
    description: c.category.description,
    media: c.media.map(toV1MediaItem),
    products: c.products.map((p) => toV1Product(p.view, p.media)),
  };
}
