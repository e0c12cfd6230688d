import { ID, ID_LIST } from '../../common/http/api-id';
import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
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
import { IdOrSlugParam } from '../../common/http/params';
import { IsIdSet, MAX_ID, OptionalNotNull, toBoolean, toInteger } from '../../common/input/dto-rules';
import { CURRENCY_CODES, isCurrency } from '../../common/money/money';
import { CursorQueryDto } from '../../common/pagination/page';
import {
  SLUG_MAX_LENGTH,
  SLUG_MESSAGE,
  SLUG_PATTERN,
  SLUG_PREFIX_MESSAGE,
  SLUG_PREFIX_PATTERN,
} from '../../common/slugs/slugs';
import {
  PRODUCT_STATUSES,
  type ProductStatus,
  RECURRING_INTERVALS,
  type RecurringInterval,
  TAX_BEHAVIORS,
  type TaxBehavior,
} from '../entities/product.entity';
import { MAX_POSITION } from './category.dto';
import { declareSchemaRule } from '../../common/openapi/openapi-rules';
import { Checked } from '../../common/input/checked';

/** The largest amount in minor units: ten billion of a two-decimal currency. */
export const MAX_AMOUNT = 1_000_000_000_000;
export const MAX_STOCK = 1_000_000_000;

declareSchemaRule('isCurrency', {
  schema: { type: 'string', enum: [...CURRENCY_CODES] },
  described: 'An ISO 4217 currency code, upper case.',
});

/** An ISO 4217 code, upper case (`EUR`). */
export const IsCurrency = () =>
  ValidateBy({
    name: 'isCurrency',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isCurrency(value),
      defaultMessage: () => 'must be an ISO 4217 currency code in upper case, such as EUR',
    },
  });

export class RecurringDto {
  @ApiProperty({ enum: RECURRING_INTERVALS, example: 'month' })
  @IsIn(RECURRING_INTERVALS)
  interval: RecurringInterval;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 365, example: 1, description: 'Every this many intervals' })
  @IsInt()
  @Min(1)
  @Max(365)
  intervalCount: number;
}

const OPTION_NAME = { type: String, nullable: true, maxLength: 100 } as const;

/**
 * `RecurringDto | null`, written out: OpenAPI 3.0 has no nullable $ref (`nullable` beside
 * `allOf` still applies the referenced schema to null), so the object is described in place.
 */
export const NULLABLE_RECURRING: ApiPropertyOptions = {
  type: 'object',
  nullable: true,
  properties: {
    interval: { type: 'string', enum: [...RECURRING_INTERVALS] },
    intervalCount: { type: 'integer', minimum: 1, maximum: 365 },
  },
  required: ['interval', 'intervalCount'],
};

/** What a create and a PATCH both take. */
class ProductFieldsDto {
  @ApiPropertyOptional({ example: 'stoneware-mug', description: 'Unique in the site; made from the name when absent' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(SLUG_MAX_LENGTH)
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  slug?: string;

  @ApiPropertyOptional({
    example: 'shop',
    description: 'Put in front of a slug made from the name: `shop-stoneware-mug`',
  })
  @OptionalNotNull()
  @IsString()
  @MaxLength(60)
  @Matches(SLUG_PREFIX_PATTERN, { message: SLUG_PREFIX_MESSAGE })
  slugPrefix?: string;

  @ApiPropertyOptional({ example: 'A 350 ml mug, glazed by hand.', maxLength: 20000 })
  @OptionalNotNull()
  @IsString()
  @MaxLength(20_000)
  description?: string;

  @ApiPropertyOptional({
    enum: PRODUCT_STATUSES,
    example: 'published',
    description:
      'Only published products are shown to anonymous readers and can be ordered. Absent on create: `published`',
  })
  @OptionalNotNull()
  @IsIn(PRODUCT_STATUSES)
  status?: ProductStatus;

  @ApiPropertyOptional({
    type: 'integer',
    example: 1,
    description: 'Lists go by position, then id. Absent on create: 0',
  })
  @OptionalNotNull()
  @IsInt()
  @Min(-MAX_POSITION)
  @Max(MAX_POSITION)
  position?: number;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 0,
    example: 25,
    description: 'Units left to sell; null: unlimited. Absent on create: null',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_STOCK)
  quantityAvailable?: number | null;

  @ApiPropertyOptional({ ...ID, nullable: true, example: 1, description: 'A product category of the site' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Checked('stored data', 'Names a product category of this site.')
  @Max(MAX_ID)
  categoryId?: number | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'standard', maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  taxCode?: string | null;

  @ApiPropertyOptional({
    enum: TAX_BEHAVIORS,
    description:
      '`exclusive`: tax is added to the price; `inclusive`: the price contains it; `unspecified`: no tax. Absent on create: `unspecified`',
  })
  @OptionalNotNull()
  @IsIn(TAX_BEHAVIORS)
  taxBehavior?: TaxBehavior;

  @ApiPropertyOptional({ ...NULLABLE_RECURRING, description: 'A plan billed every period; null: a one-off' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RecurringDto)
  recurring?: RecurringDto | null;

  @ApiPropertyOptional({ ...OPTION_NAME, example: 'Size', description: 'The first option its variants differ by' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  option1?: string | null;

  @ApiPropertyOptional({ ...OPTION_NAME, example: 'Colour' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  option2?: string | null;

  @ApiPropertyOptional({ ...OPTION_NAME, example: null })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  option3?: string | null;

  @ApiPropertyOptional({ example: 'MUG-350', maxLength: 500, description: 'What the payment processor shows' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(500)
  processorDescription?: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'prod_live_123', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  processorProductIdLive?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'prod_test_123', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  processorProductIdTest?: string | null;

  @ApiPropertyOptional({ ...ID_LIST, example: [1], description: 'Media ids of the site' })
  @OptionalNotNull()
  @Checked('stored data', 'Each id names a media item of this site.')
  @IsIdSet()
  attachmentIds?: number[];
}

export class CreateProductDto extends ProductFieldsDto {
  @ApiProperty({ example: 'Stoneware mug', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_AMOUNT, example: 1800, description: 'Minor units (cents)' })
  @IsInt()
  @Min(0)
  @Max(MAX_AMOUNT)
  unitAmount: number;

  @ApiProperty({ example: 'EUR', description: 'ISO 4217, upper case' })
  @IsCurrency()
  currency: string;
}

export class UpdateProductDto extends ProductFieldsDto {
  // Its own example: the create's slug is taken once the create example ran; the demo's product 1 keeps its own.
  @ApiPropertyOptional({ example: 'monthly-membership', description: 'Unique in the site' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(SLUG_MAX_LENGTH)
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  declare slug?: string;

  @ApiPropertyOptional({ example: 'Stoneware mug', maxLength: 200 })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_AMOUNT, example: 1800 })
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(MAX_AMOUNT)
  unitAmount?: number;

  @ApiPropertyOptional({ example: 'EUR' })
  @OptionalNotNull()
  @IsCurrency()
  currency?: string;
}

export class ProductQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ ...ID, example: 1, description: 'Products of this category' })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  categoryId?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, example: 1000, description: 'Price at least (minor units)' })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(MAX_AMOUNT)
  minAmount?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, example: 5000, description: 'Price at most (minor units)' })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(MAX_AMOUNT)
  maxAmount?: number;

  @ApiPropertyOptional({ example: 'EUR', description: 'Products priced in this currency' })
  @IsOptional()
  @IsCurrency()
  currency?: string;

  @ApiPropertyOptional({ type: Boolean, description: '`true`: with stock left (or unlimited); `false`: sold out' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  inStock?: boolean;

  @ApiPropertyOptional({ type: Boolean, description: '`true`: plans only; `false`: one-off products only' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  recurring?: boolean;

  @ApiPropertyOptional({ example: 'mug', maxLength: 200, description: 'Words of the name and description' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ enum: PRODUCT_STATUSES, description: 'With a key; anonymous readers see published ones only' })
  @IsOptional()
  @IsIn(PRODUCT_STATUSES)
  status?: ProductStatus;
}

/** `GET …/products/{id}`: an id or a slug; the example is the demo's product (a create's slug is made from its name). */
export class ProductIdOrSlugParamDto extends IdOrSlugParam('monthly-membership') {}
