import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { SiteIdParamDto } from '../../common/http/params';
import { IsIdParam, MAX_ID, OptionalNotNull } from '../../common/input/dto-rules';
import { ProductVariantEntity } from '../entities/product-variant.entity';
import { MAX_POSITION } from './category.dto';
import { MAX_AMOUNT, MAX_STOCK } from './product.dto';
import { Checked } from '../../common/input/checked';

/** `:id/variants/:variantId`. */
export class VariantParamDto extends SiteIdParamDto {
  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 1 })
  @IsIdParam()
  variantId: number;
}

const VALUE = { type: String, nullable: true, maxLength: 100 } as const;

/** What a create and a PATCH of a variant take; the combination of values is unique per product. */
export class VariantFieldsDto {
  @Checked('stored data', 'Only for a product that names its option1.')
  @ApiPropertyOptional({ ...VALUE, example: 'M', description: "The value of the product's option1 (`Size`)" })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  option1Value?: string | null;

  @ApiPropertyOptional({ ...VALUE, example: 'Blue' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @Checked('stored data', 'Only for a product that names its option2.')
  @MaxLength(100)
  option2Value?: string | null;

  @ApiPropertyOptional({ ...VALUE, example: null })
  @IsOptional()
  @Checked('stored data', 'Only for a product that names its option3.')
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  option3Value?: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 0,
    example: 2000,
    description: "Its own price (minor units, the product's currency); null: the product's",
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_AMOUNT)
  unitAmount?: number | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true, minimum: 0, example: 10, description: 'null: unlimited' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_STOCK)
  quantityAvailable?: number | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'MUG-350-M-BLU', description: 'Unique in the site' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  sku?: string | null;

  @ApiPropertyOptional({ type: 'integer', example: 0 })
  @OptionalNotNull()
  @IsInt()
  @Min(-MAX_POSITION)
  @Max(MAX_POSITION)
  position?: number;
}

export class CreateVariantDto extends VariantFieldsDto {}
export class UpdateVariantDto extends VariantFieldsDto {
  // Its own example: the create example's values are taken on the demo's product 1 once it ran.
  @Checked('stored data', 'Only for a product that names its option1.')
  @ApiPropertyOptional({ ...VALUE, example: 'L', description: "The value of the product's option1 (`Size`)" })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  declare option1Value?: string | null;

  // Below the plan's 900: the user's change-plan example to this variant is paid by the old plan's credit.
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 0,
    example: 700,
    description: "Its own price (minor units, the product's currency); null: the product's",
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_AMOUNT)
  declare unitAmount?: number | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'MEMBER-L-BLU', description: 'Unique in the site' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  declare sku?: string | null;
}

export class VariantResponseDto {
  @ApiProperty({ ...ID, example: 5 }) id: number;
  @ApiProperty({ type: String, nullable: true, example: 'M' }) option1Value: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Blue' }) option2Value: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) option3Value: string | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 2000, description: "null: the product's price" })
  unitAmount: number | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 10 }) quantityAvailable: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'MUG-350-M-BLU' }) sku: string | null;
  @ApiProperty({ example: 0 }) position: number;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'Its own Stripe Product in live mode (set by the sync, docs/payments.md); null until synced',
  })
  processorProductIdLive: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Its own Stripe Product in test mode' })
  processorProductIdTest: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
}

export function toVariantResponse(v: ProductVariantEntity): VariantResponseDto {
  return {
    id: v.id,
    option1Value: v.option1Value,
    option2Value: v.option2Value,
    option3Value: v.option3Value,
    unitAmount: v.unitAmount,
    quantityAvailable: v.quantityAvailable,
    sku: v.sku,
    position: v.position,
    processorProductIdLive: v.processorProductIdLive,
    processorProductIdTest: v.processorProductIdTest,
    createdAt: v.createdAt.toISOString(),
    updatedAt: v.updatedAt.toISOString(),
  };
}
