import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsInt,
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
import { OptionalNotNull } from '../../common/input/dto-rules';
import { IsHeaderText, IsMailAddress } from '../../common/input/mail-rules';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { MAX_HELD_UNITS, MAX_HOLD_MINUTES, MAX_PENDING_PER_USER, orderHolds } from '../../common/tenancy/site-settings';
import {
  SubscriptionsSettingsDto,
  SubscriptionsSettingsResponseDto,
  toSubscriptionsSettings,
} from './subscriptions-settings.dto';
import { declareSchemaRule } from '../../common/openapi/openapi-rules';

export class CreateSiteDto {
  @ApiProperty({
    example: 'my-blog',
    pattern: SITE_NAME_PATTERN.source,
    description: 'Unique across the installation; used in paths',
  })
  @IsString()
  @Matches(SITE_NAME_PATTERN, {
    message: 'must be lower-case letters, digits and dashes, starting with a letter or digit (at most 63)',
  })
  name: string;

  @ApiPropertyOptional({ example: 'My blog' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(200)
  title?: string;
}

/** The sender of the site's mail; null clears a field (MAIL_FROM applies again). */
export class EmailSettingsDto {
  @ApiPropertyOptional({ type: String, nullable: true, example: 'Demo Blog' })
  @IsOptional()
  @IsHeaderText(200)
  fromName?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, example: 'news@demo.example' })
  @IsOptional()
  @IsMailAddress()
  fromAddress?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, example: 'editors@demo.example' })
  @IsOptional()
  @IsMailAddress()
  replyTo?: string | null;
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: 100,
    example: 3,
    description: 'Soft bounces of an address within softBounceWindowDays that mark it bounced; null: BOUNCE_SOFT_LIMIT',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  softBounceLimit?: number | null;
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: 365,
    example: 7,
    description: 'The window of softBounceLimit, in days; null: BOUNCE_SOFT_WINDOW_DAYS',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(365)
  softBounceWindowDays?: number | null;
}

/** At most this many addresses are told of each contact message. */
export const MAX_NOTIFY_EMAILS = 10;

/** The contact inbox (docs/contacts.md); null clears the list. */
export class ContactsSettingsDto {
  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    maxItems: MAX_NOTIFY_EMAILS,
    example: ['team@demo.example'],
    description:
      'Who receives a `contacts.received` mail for each new contact message (lower-cased); empty or null: no mail',
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    Array.isArray(value) ? (value as unknown[]).map((v) => (typeof v === 'string' ? v.toLowerCase() : v)) : value,
  )
  @IsMailAddress({ each: true })
  @ArrayUnique()
  @ArrayMaxSize(MAX_NOTIFY_EMAILS)
  @IsArray()
  notifyEmails?: string[] | null;
}

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

/** The newsletter audience (docs/newsletter.md); null clears a field. */
export class NewsletterSettingsDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'https://blog.example.com/thanks',
    description: 'Where a browser is sent (303) once it confirms a subscription; null: a page in the site’s name',
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  @Matches(/^https?:\/\/[^\s/?#]+([/?#]\S*)?$/, { message: 'must be an http(s) URL' })
  confirmRedirectUrl?: string | null;

  @ApiPropertyOptional({
    type: Boolean,
    nullable: true,
    example: true,
    description:
      'Deleting a subscription keeps a hash of its address, so import, sync and bulk never add it again; null: false',
  })
  @IsOptional()
  @IsBoolean()
  suppressOnDelete?: boolean | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: 1_000_000,
    example: 6000,
    description: 'Campaign mails a minute at most; null: the server’s NEWSLETTER_SEND_RATE_PER_MINUTE',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  sendRatePerMinute?: number | null;
}

/** Sections of the site's settings; each module adds its own (src/common/tenancy/site-settings.ts). */
export class SiteSettingsDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'https://blog.example.com',
    description: "Origin of the links in this site's mail; null: PUBLIC_BASE_URL",
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, {
    message: 'must be an http(s) URL such as https://blog.example.com',
  })
  publicBaseUrl?: string | null;

  @ApiPropertyOptional({ type: EmailSettingsDto, description: "The sender of the site's mail" })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => EmailSettingsDto)
  email?: EmailSettingsDto;

  @ApiPropertyOptional({ type: ContactsSettingsDto, description: 'The contact inbox: who is told of new messages' })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => ContactsSettingsDto)
  contacts?: ContactsSettingsDto;
  @ApiPropertyOptional({
    type: OrdersSettingsDto,
    description: "The tax of the site's orders, and how long unpaid ones hold their stock",
  })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => OrdersSettingsDto)
  orders?: OrdersSettingsDto;
  @ApiPropertyOptional({ type: NewsletterSettingsDto, description: 'The newsletter audience' })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => NewsletterSettingsDto)
  newsletter?: NewsletterSettingsDto;
  @ApiPropertyOptional({
    type: SubscriptionsSettingsDto,
    description: 'Site users’ subscriptions: how long an unpaid period charge is waited for',
  })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => SubscriptionsSettingsDto)
  subscriptions?: SubscriptionsSettingsDto;
}

/** A partial update: fields left out stay as they are; in settings, null clears a field. */
export class UpdateSiteDto {
  @ApiPropertyOptional({ example: 'My blog' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(200)
  title?: string;

  @ApiPropertyOptional({ type: SiteSettingsDto })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => SiteSettingsDto)
  settings?: SiteSettingsDto;
}

export class EmailSettingsResponseDto {
  @ApiProperty({ type: String, nullable: true, example: 'Demo Blog' }) fromName: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'news@demo.example' }) fromAddress: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) replyTo: string | null;
  @ApiProperty({ type: 'integer', nullable: true, example: null, description: 'null: the server’s BOUNCE_SOFT_LIMIT' })
  softBounceLimit: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: null,
    description: 'null: the server’s BOUNCE_SOFT_WINDOW_DAYS',
  })
  softBounceWindowDays: number | null;
}

export class ContactsSettingsResponseDto {
  @ApiProperty({ type: [String], example: ['team@demo.example'], description: 'Empty: no mail' })
  notifyEmails: string[];
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

export class NewsletterSettingsResponseDto {
  @ApiProperty({ type: String, nullable: true, example: null }) confirmRedirectUrl: string | null;
  @ApiProperty({ example: false }) suppressOnDelete: boolean;
  @ApiProperty({ type: 'integer', nullable: true, example: null, description: 'null: the server’s default' })
  sendRatePerMinute: number | null;
}

/** What the site set; null: the configuration's value applies. */
export class SiteSettingsResponseDto {
  @ApiProperty({ type: String, nullable: true, example: null }) publicBaseUrl: string | null;
  @ApiProperty({ type: EmailSettingsResponseDto }) email: EmailSettingsResponseDto;
  @ApiProperty({ type: ContactsSettingsResponseDto }) contacts: ContactsSettingsResponseDto;
  @ApiProperty({ type: OrdersSettingsResponseDto }) orders: OrdersSettingsResponseDto;
  @ApiProperty({ type: NewsletterSettingsResponseDto }) newsletter: NewsletterSettingsResponseDto;
  @ApiProperty({ type: SubscriptionsSettingsResponseDto }) subscriptions: SubscriptionsSettingsResponseDto;
}

export class SiteResponseDto {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 'demo' }) name: string;
  @ApiProperty({ example: 'Demo site' }) title: string;
  @ApiProperty({ example: 1, description: 'The account (v1 organization_id) that owns the site' }) accountId: number;
  @ApiProperty({ type: SiteSettingsResponseDto }) settings: SiteSettingsResponseDto;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
}

export function toSiteResponse(site: SiteEntity): SiteResponseDto {
  return {
    id: site.id,
    name: site.name,
    title: site.title,
    accountId: site.accountId,
    settings: {
      publicBaseUrl: site.settings.publicBaseUrl ?? null,
      email: {
        fromName: site.settings.email?.fromName ?? null,
        fromAddress: site.settings.email?.fromAddress ?? null,
        replyTo: site.settings.email?.replyTo ?? null,
        softBounceLimit: site.settings.email?.softBounceLimit ?? null,
        softBounceWindowDays: site.settings.email?.softBounceWindowDays ?? null,
      },
      contacts: { notifyEmails: site.settings.contacts?.notifyEmails ?? [] },
      orders: {
        taxRates: site.settings.orders?.taxRates ?? {},
        defaultTaxRate: site.settings.orders?.defaultTaxRate ?? null,
        ...orderHolds(site.settings.orders),
      },
      newsletter: {
        confirmRedirectUrl: site.settings.newsletter?.confirmRedirectUrl ?? null,
        suppressOnDelete: site.settings.newsletter?.suppressOnDelete ?? false,
        sendRatePerMinute: site.settings.newsletter?.sendRatePerMinute ?? null,
      },
      subscriptions: toSubscriptionsSettings(site.settings.subscriptions),
    },
    createdAt: site.createdAt.toISOString(),
    updatedAt: site.updatedAt.toISOString(),
  };
}
