import { ID } from '../../common/http/api-id';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMinSize,
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
import { IsTimestamp, MAX_ID, NestedArray, OptionalNotNull } from '../../common/input/dto-rules';
import { IsHeaderText, IsMailAddress } from '../../common/input/mail-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import { FULFILLMENT_STATUSES, type FulfillmentStatus, PAYMENT_STATUSES, type PaymentStatus } from '../order-status';
import { declareSchemaRule } from '../../common/openapi/openapi-rules';
import { Checked } from '../../common/input/checked';

/** At most this many lines an order, and units a line. */
export const MAX_LINES = 100;
export const MAX_QUANTITY = 10_000;

/** Metadata: at most 50 keys of 1-40 characters, each a string of at most 500 (as Stripe's). */
export const MAX_METADATA_KEYS = 50;

export function metadataError(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be an object of strings';
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_METADATA_KEYS) return `must have at most ${MAX_METADATA_KEYS} keys`;
  for (const [key, v] of entries) {
    if (key.length < 1 || key.length > 40) return `key "${key.slice(0, 40)}…" must be 1 to 40 characters`;
    if (typeof v !== 'string') return `the value of "${key}" must be a string`;
    if (v.length > 500) return `the value of "${key}" must be at most 500 characters`;
  }
  return null;
}

declareSchemaRule('isMetadata', {
  schema: {
    type: 'object',
    maxProperties: MAX_METADATA_KEYS,
    additionalProperties: { type: 'string', maxLength: 500 },
  },
  described: 'Keys are 1 to 40 characters.',
});

const IsMetadata = () =>
  ValidateBy({
    name: 'isMetadata',
    validator: {
      validate: (value: unknown) => metadataError(value) === null,
      defaultMessage: (args) => metadataError(args?.value) ?? 'is invalid',
    },
  });

const REGIONS = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** Every two-letter code Node's ICU data names: the one list the validator and the document's enum use. */
const COUNTRY_CODES: readonly string[] = Array.from({ length: 26 * 26 }, (_, i) =>
  String.fromCharCode(65 + Math.floor(i / 26), 65 + (i % 26)),
).filter((code) => REGIONS.of(code) !== undefined);
const COUNTRIES = new Set(COUNTRY_CODES);

declareSchemaRule('isCountry', {
  schema: { type: 'string', enum: [...COUNTRY_CODES] },
  described: 'An ISO 3166-1 alpha-2 country code, upper case.',
});

/** An ISO 3166-1 alpha-2 country code, upper case, that Node's ICU data knows (`FR`, `US`). */
const IsCountry = () =>
  ValidateBy({
    name: 'isCountry',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && COUNTRIES.has(value),
      defaultMessage: () => 'must be an ISO 3166-1 alpha-2 country code in upper case, such as FR',
    },
  });

const PHONE = /^\+?[0-9 ().-]{3,40}$/;
const PHONE_MESSAGE = 'must be a phone number: digits, spaces, ( ) . - and a leading +';

export class OrderLineRequestDto {
  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 1, description: 'A published product' })
  @IsInt()
  @Min(1)
  @Checked('stored data', 'Names a product of this site that is for sale.')
  @Max(MAX_ID)
  productId: number;

  @ApiPropertyOptional({
    ...ID,
    minimum: 1,
    maximum: MAX_ID,
    example: 1,
    description: 'One of its variants; absent: the product itself',
  })
  @OptionalNotNull()
  @Checked('stored data', 'Names a variant of that product.')
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  variantId?: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_QUANTITY, example: 2 })
  @Checked(
    'stored data',
    "With a site user's session, an item whose stock is counted takes at most the site's `maxHeldPerProduct` " +
      'units (default 10) with what the user already holds unpaid (409 `hold_limit_exceeded`).',
  )
  @IsInt()
  @Min(1)
  @Max(MAX_QUANTITY)
  quantity: number;
}

export class CustomerDto {
  @ApiProperty({ example: 'ada@example.com', description: 'Where the confirmation goes; kept lower case' })
  @IsMailAddress()
  email: string;

  @ApiPropertyOptional({ example: 'Ada Lovelace', maxLength: 200 })
  @OptionalNotNull()
  @IsNotEmpty()
  @IsHeaderText(200)
  name?: string;

  @ApiPropertyOptional({ example: '+44 20 7946 0000', maxLength: 40 })
  @OptionalNotNull()
  @IsString()
  @Matches(PHONE, { message: PHONE_MESSAGE })
  phone?: string;
}

export class AddressDto {
  @ApiPropertyOptional({ example: 'Ada Lovelace', maxLength: 200, description: 'The recipient' })
  @OptionalNotNull()
  @IsNotEmpty()
  @IsHeaderText(200)
  name?: string;

  @ApiProperty({ example: '12 Harbour Street', maxLength: 200 })
  @IsNotEmpty()
  @IsHeaderText(200)
  line1: string;

  @ApiPropertyOptional({ example: 'Flat 3', maxLength: 200 })
  @OptionalNotNull()
  @IsHeaderText(200)
  line2?: string;

  @ApiProperty({ example: 'Bristol', maxLength: 100 })
  @IsNotEmpty()
  @IsHeaderText(100)
  city: string;

  @ApiPropertyOptional({ example: 'England', maxLength: 100, description: 'State, province or county' })
  @OptionalNotNull()
  @IsHeaderText(100)
  region?: string;

  @ApiPropertyOptional({ example: 'BS1 4DJ', maxLength: 20 })
  @OptionalNotNull()
  @IsHeaderText(20)
  postalCode?: string;

  @ApiProperty({ example: 'GB', description: 'ISO 3166-1 alpha-2, upper case' })
  @IsCountry()
  country: string;

  @ApiPropertyOptional({ example: '+44 20 7946 0000', maxLength: 40 })
  @OptionalNotNull()
  @IsString()
  @Matches(PHONE, { message: PHONE_MESSAGE })
  phone?: string;
}

/**
 * A new order. Prices, currency and tax come from the catalog and the site's settings: a line
 * that sends its own price (`unitAmount`, `price`, …) is refused like any unknown field.
 */
export class CreateOrderDto {
  @ApiProperty({ type: [OrderLineRequestDto], minItems: 1, maxItems: MAX_LINES })
  @NestedArray(() => OrderLineRequestDto, MAX_LINES)
  @ArrayMinSize(1)
  lines: OrderLineRequestDto[];

  @ApiPropertyOptional({
    type: CustomerDto,
    description:
      'Required with a key. With a site user’s session it may be left out: the order is the user’s, under their ' +
      'address (an `email` sent must be that address).',
  })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Checked('credential', "Required with a key; a site user's session orders as that user.")
  @Type(() => CustomerDto)
  customer?: CustomerDto;

  @ApiPropertyOptional({ type: AddressDto })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => AddressDto)
  shippingAddress?: AddressDto;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 500 },
    example: { cartId: 'c_8f2a' },
    description: "The integration's own data: at most 50 keys of 1-40 characters, string values of at most 500",
  })
  @OptionalNotNull()
  @IsMetadata()
  metadata?: Record<string, string>;
}

export class OrderQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ enum: PAYMENT_STATUSES })
  @IsOptional()
  @IsIn(PAYMENT_STATUSES)
  paymentStatus?: PaymentStatus;

  @ApiPropertyOptional({ enum: FULFILLMENT_STATUSES })
  @IsOptional()
  @IsIn(FULFILLMENT_STATUSES)
  fulfillmentStatus?: FulfillmentStatus;

  @ApiPropertyOptional({
    example: 'ada@example.com',
    description: "The customer's email, exactly (case does not matter)",
  })
  @IsOptional()
  @IsMailAddress()
  email?: string;

  @ApiPropertyOptional({ description: 'Created at or after this date-time (RFC 3339)' })
  @IsOptional()
  @IsTimestamp()
  from?: Date;

  @ApiPropertyOptional({ description: 'Created before this date-time (RFC 3339)' })
  @IsOptional()
  @IsTimestamp()
  to?: Date;
}

export class ShipmentLineDto {
  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 31, description: 'A line of the order' })
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  lineId: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_QUANTITY, example: 1 })
  @IsInt()
  @Min(1)
  @Max(MAX_QUANTITY)
  quantity: number;
}

export class ShipmentDto {
  @ApiProperty({ example: 'DHL', maxLength: 100 })
  @IsNotEmpty()
  @IsHeaderText(100)
  carrier: string;

  @ApiProperty({ example: 'JD014600003828', maxLength: 100 })
  @IsNotEmpty()
  @IsHeaderText(100)
  trackingNumber: string;

  @ApiPropertyOptional({ example: 'https://tracking.example/JD014600003828', maxLength: 2000 })
  @OptionalNotNull()
  @IsString()
  @MaxLength(2000)
  @Matches(/^https?:\/\/[^\s/?#]+(?:[/?#]\S*)?$/, { message: 'must be an http(s) URL' })
  trackingUrl?: string;

  @ApiPropertyOptional({
    type: [ShipmentLineDto],
    minItems: 1,
    maxItems: MAX_LINES,
    description: 'Units of each line in the parcel; absent: everything not yet fulfilled',
  })
  @OptionalNotNull()
  @NestedArray(() => ShipmentLineDto, MAX_LINES)
  @ArrayMinSize(1)
  lines?: ShipmentLineDto[];
}

const CHANGE_STATUSES = ['fulfilled', 'canceled'] as const;

/** A change of fulfillment: a shipment, or a status; exactly one of them. */
export class UpdateFulfillmentDto {
  @Checked('other fields', 'Exactly one of `shipment` or `status`.')
  @ApiPropertyOptional({
    type: ShipmentDto,
    description: 'A parcel sent: moves the order to partially_fulfilled or fulfilled',
  })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => ShipmentDto)
  shipment?: ShipmentDto;

  @Checked('other fields', 'Exactly one of `shipment` or `status`.')
  @ApiPropertyOptional({
    enum: CHANGE_STATUSES,
    description:
      '`canceled`: cancels an order not yet fulfilled and gives back the stock of what was not shipped; ' +
      '`fulfilled`: fulfils what is left without a shipment (downloads, pick-up)',
  })
  @OptionalNotNull()
  @IsIn(CHANGE_STATUSES)
  status?: (typeof CHANGE_STATUSES)[number];
}

/**
 * A fulfillment provider's notification (`POST …/orders/fulfillment-notifications`): the same
 * change as `PATCH …/orders/{id}/fulfillment`, for the order `orderId`, under the provider's
 * notification `id` (unique per site: a replay changes nothing).
 */
export class FulfillmentNotificationDto extends UpdateFulfillmentDto {
  @ApiProperty({
    example: 'ntf_1',
    maxLength: 200,
    description: "The provider's id of this notification: printable ASCII without spaces, unique per site",
  })
  @IsString()
  @MaxLength(200)
  @Matches(/^[\x21-\x7e]+$/, { message: 'must be 1 to 200 printable ASCII characters without spaces' })
  id: string;

  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 42 })
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  orderId: number;
}

export class UpdatePaymentDto {
  @ApiProperty({ enum: PAYMENT_STATUSES, example: 'refunded', description: '`pending → paid → refunded`' })
  @IsIn(PAYMENT_STATUSES)
  paymentStatus: PaymentStatus;

  @ApiPropertyOptional({
    example: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
    maxLength: 200,
    description: "The processor's id of the payment",
  })
  @OptionalNotNull()
  @IsNotEmpty()
  @IsHeaderText(200)
  processorPaymentId?: string;
}
