import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min, ValidateBy } from 'class-validator';
import { declareSchemaRule } from '../../common/openapi/openapi-rules';
import {
  MAX_HELD_UNITS,
  MAX_HOLD_MINUTES,
  MAX_PENDING_PER_USER,
  orderHolds,
  OrdersSettings,
} from '../../common/tenancy/site-settings';

/**
 * The `orders` section of a site's settings (docs/orders.md), in and out; the site's DTO
 * (src/account/dto/site.dto.ts) holds it with the other modules' sections.
 */

/** A tax rate in basis points: 1 % is 100, 100 % is 10000. */
export const MAX_TAX_RATE = 10_000;
const MAX_TAX_CODES = 100;

/** Why a `taxRates` map is refused, or null: at most 100 codes of 1-100 characters, each an integer 0..10000. */
declareSchemaRule('isTaxRates', {
  schema: {
    type: 'object',
    maxProperties: MAX_TAX_CODES,
    additionalProperties: { type: 'integer', minimum: 0, maximum: MAX_TAX_RATE },
  },
  described: 'Tax codes are 1 to 100 characters.',
});

export function taxRatesError(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return 'must be an object of tax codes to basis points';
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_TAX_CODES) return `must have at most ${MAX_TAX_CODES} tax codes`;
  for (const [code, rate] of entries) {
    if (code.length < 1 || code.length > 100) return `tax code "${code.slice(0, 20)}" must be 1 to 100 characters`;
    if (typeof rate !== 'number' || !Number.isInteger(rate) || rate < 0 || rate > MAX_TAX_RATE)
      return `the rate of "${code}" must be an integer from 0 to ${MAX_TAX_RATE} (basis points)`;
  }
  return null;
}

/**
 * The tax of the site's orders and how long unpaid ones hold their stock (docs/orders.md); null
 * clears a field, except `keyHoldMinutes`, whose null means "no expiry".
 */
export class OrdersSettingsDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 0, maximum: MAX_TAX_RATE },
    nullable: true,
    example: { standard: 2000, reduced: 550 },
    description:
      "Tax rates in basis points (2000 = 20 %), keyed by the products' `taxCode`; replaces the whole map. " +
      'At most 100 codes.',
  })
  @IsOptional()
  @ValidateBy({
    name: 'isTaxRates',
    validator: {
      validate: (value: unknown) => taxRatesError(value) === null,
      defaultMessage: (args) => taxRatesError(args?.value) ?? 'is invalid',
    },
  })
  taxRates?: Record<string, number> | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 0,
    maximum: MAX_TAX_RATE,
    example: 2000,
    description: 'The rate of a taxed product whose tax code has none (or that has no code); null: 0',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_TAX_RATE)
  defaultTaxRate?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: MAX_HOLD_MINUTES,
    example: 30,
    description:
      'Minutes an unpaid order placed with a site user’s session holds its stock before it is canceled; null: 30',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_HOLD_MINUTES)
  sessionHoldMinutes?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: MAX_HOLD_MINUTES,
    example: 1440,
    description:
      'Minutes an unpaid order placed with a key holds its stock before it is canceled (default 1440). ' +
      'null is a value here: the site’s backend manages its orders, which hold their stock until paid or canceled',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_HOLD_MINUTES)
  keyHoldMinutes?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: MAX_PENDING_PER_USER,
    example: 5,
    description:
      'Unpaid open orders a site user may have at once; their next is a 409 `too_many_pending_orders`; null: 5',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PENDING_PER_USER)
  maxPendingPerUser?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: MAX_HELD_UNITS,
    example: 10,
    description:
      'Units of one product (of one variant where the stock is kept by variant) a site user may hold in unpaid ' +
      'orders, of items whose stock is counted: a line, or the lines of their orders together, beyond it is a ' +
      '409 `hold_limit_exceeded`; null: 10',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_HELD_UNITS)
  maxHeldPerProduct?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: MAX_HELD_UNITS,
    example: 50,
    description:
      'Units of counted stock a site user may hold in all their unpaid orders together; beyond it, a 409 ' +
      '`hold_limit_exceeded`; null: 50',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_HELD_UNITS)
  maxHeldPerUser?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 0,
    maximum: MAX_HOLD_MINUTES,
    example: 10,
    description:
      'Minutes after a site user’s unpaid order of an item expired before they may hold that item again (409 ' +
      '`hold_cooldown` with Retry-After); 0: at once; null: 10',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_HOLD_MINUTES)
  holdCooldownMinutes?: number | null;
}

export class OrdersSettingsResponseDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: { standard: 2000 },
    description: 'Basis points by tax code',
  })
  taxRates: Record<string, number>;
  @ApiProperty({ type: 'integer', nullable: true, example: null, description: 'null: 0' }) defaultTaxRate:
    number | null;
  @ApiProperty({ example: 30, description: 'Minutes a session’s unpaid order holds its stock' })
  sessionHoldMinutes: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 1440,
    description: 'Minutes a key’s unpaid order holds its stock; null: until paid or canceled',
  })
  keyHoldMinutes: number | null;
  @ApiProperty({ example: 5, description: 'Unpaid open orders a site user may have at once' })
  maxPendingPerUser: number;
  @ApiProperty({ example: 10, description: 'Units of one item a site user may hold unpaid' })
  maxHeldPerProduct: number;
  @ApiProperty({ example: 50, description: 'Units a site user may hold unpaid over all their orders' })
  maxHeldPerUser: number;
  @ApiProperty({ example: 10, description: 'Minutes before a site user holds again an item whose hold expired' })
  holdCooldownMinutes: number;
}

/** The section as a site's answer shows it: the holds' defaults for what the site did not set. */
export function toOrdersSettings(orders: OrdersSettings | undefined): OrdersSettingsResponseDto {
  return {
    taxRates: orders?.taxRates ?? {},
    defaultTaxRate: orders?.defaultTaxRate ?? null,
    ...orderHolds(orders),
  };
}
