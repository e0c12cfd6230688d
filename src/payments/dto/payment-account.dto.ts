import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { FreeFormBody } from '../../common/openapi/openapi-derive';
import { Type } from 'class-transformer';
import { IsIn, IsObject, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import { DATE_TIME } from '../../common/http/api-date';
import { OptionalNotNull } from '../../common/input/dto-rules';
import { STRIPE_KEY_SHAPE, STRIPE_WEBHOOK_SECRET_SHAPE } from '../../config/setting-shapes';
import { PAYMENT_MODES, type PaymentAccountEntity, type PaymentMode } from '../entities/payment-account.entity';

class ModeKeysDto {
  secretKey: string;

  @ApiProperty({
    description: 'The signing secret of the Stripe webhook endpoint that posts to `…/payments/stripe/events`',
    example: 'whsec_9Y2u1bZc3nT8qRfLwX4kPaEo7sHdVg6M',
    pattern: STRIPE_WEBHOOK_SECRET_SHAPE.source,
    writeOnly: true,
  })
  @IsString()
  @Matches(STRIPE_WEBHOOK_SECRET_SHAPE, { message: 'must be a Stripe webhook signing secret (whsec_…)' })
  webhookSecret: string;
}

export class TestKeysDto extends ModeKeysDto {
  @ApiProperty({
    description:
      'A test-mode secret key, or a restricted key (recommended) with the permissions docs/payments.md lists',
    example: 'rk_test_51Nb2xQJv8kRmT0aHc4Yf9Lw2',
    pattern: STRIPE_KEY_SHAPE.test.source,
    writeOnly: true,
  })
  @IsString()
  @Matches(STRIPE_KEY_SHAPE.test, { message: 'must be a Stripe test-mode key (sk_test_… or rk_test_…)' })
  declare secretKey: string;
}

export class LiveKeysDto extends ModeKeysDto {
  @ApiProperty({
    description: 'A live-mode secret key, or a restricted key (recommended)',
    example: 'rk_live_51Nb2xQJv8kRmT0aHc4Yf9Lw2',
    pattern: STRIPE_KEY_SHAPE.live.source,
    writeOnly: true,
  })
  @IsString()
  @Matches(STRIPE_KEY_SHAPE.live, { message: 'must be a Stripe live-mode key (sk_live_… or rk_live_…)' })
  declare secretKey: string;
}

/** A mode's keys, or null to remove them, written out: OpenAPI 3.0 has no nullable $ref. */
function nullableKeys(mode: PaymentMode): ApiPropertyOptions {
  return {
    type: 'object',
    nullable: true,
    description: `The ${mode}-mode keys; null removes them`,
    properties: {
      secretKey: {
        type: 'string',
        pattern: STRIPE_KEY_SHAPE[mode].source,
        writeOnly: true,
        description: `A ${mode}-mode secret key, or a restricted key (recommended: docs/payments.md lists its permissions)`,
      },
      webhookSecret: {
        type: 'string',
        pattern: STRIPE_WEBHOOK_SECRET_SHAPE.source,
        writeOnly: true,
        description: 'The signing secret of the Stripe webhook endpoint that posts to `…/payments/stripe/events`',
      },
    },
    required: ['secretKey', 'webhookSecret'],
    example: {
      secretKey: `rk_${mode}_51Nb2xQJv8kRmT0aHc4Yf9Lw2`,
      webhookSecret: 'whsec_9Y2u1bZc3nT8qRfLwX4kPaEo7sHdVg6M',
    },
  };
}

/**
 * Connecting a site to Stripe, or changing its keys or mode. A mode's keys given replace that
 * mode's; a mode left out keeps what it had; `null` removes it (not the mode the site charges in).
 */
export class ConnectStripeDto {
  @ApiPropertyOptional({
    enum: PAYMENT_MODES,
    description: 'The mode orders and subscriptions are charged in; default `test` on a first connection',
  })
  @OptionalNotNull()
  @IsIn(PAYMENT_MODES)
  mode?: PaymentMode;

  @ApiPropertyOptional(nullableKeys('test'))
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => TestKeysDto)
  test?: TestKeysDto | null;

  @ApiPropertyOptional(nullableKeys('live'))
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => LiveKeysDto)
  live?: LiveKeysDto | null;
}

export interface ModeConnectionDto {
  keyHint: string;
  webhookSecretSet: boolean;
}

/** `ModeConnectionDto | null`, written out: OpenAPI 3.0 has no nullable $ref. null: no keys for the mode. */
const NULLABLE_MODE: ApiPropertyOptions = {
  type: 'object',
  nullable: true,
  properties: {
    keyHint: { type: 'string', description: 'The key’s prefix and last characters: which key it is, not the key' },
    webhookSecretSet: { type: 'boolean', description: 'Whether a webhook signing secret is set (always, with a key)' },
  },
  required: ['keyHint', 'webhookSecretSet'],
  example: { keyHint: 'rk_test_…Lw2x', webhookSecretSet: true },
};

export class PaymentAccountResponseDto {
  @ApiProperty({ example: 'stripe', enum: ['stripe', 'manual'] }) processor: 'stripe' | 'manual';
  @ApiProperty({
    type: 'string',
    enum: [...PAYMENT_MODES, null],
    nullable: true,
    example: 'test',
    description: 'The mode it charges in; null: manual',
  })
  mode: PaymentMode | null;
  @ApiProperty(NULLABLE_MODE) test: ModeConnectionDto | null;
  @ApiProperty({ ...NULLABLE_MODE, example: null }) live: ModeConnectionDto | null;
  @ApiProperty({ example: '/api/v2/sites/demo/payments/stripe/events', description: 'Where Stripe posts its events' })
  webhookPath: string;
  @ApiProperty({ ...DATE_TIME, nullable: true }) updatedAt: Date | null;
}

export function toPaymentAccountResponse(
  siteName: string,
  row: PaymentAccountEntity | null,
): PaymentAccountResponseDto {
  const mode = (hint: string | null): ModeConnectionDto | null =>
    hint ? { keyHint: hint, webhookSecretSet: true } : null;
  return {
    processor: row ? 'stripe' : 'manual',
    mode: row?.mode ?? null,
    test: mode(row?.testKeyHint ?? null),
    live: mode(row?.liveKeyHint ?? null),
    webhookPath: `/api/v2/sites/${siteName}/payments/stripe/events`,
    updatedAt: row?.updatedAt ?? null,
  };
}

/** A Stripe event, as Stripe writes it: verified from its exact bytes (Stripe-Signature), never validated field by field here. */
@FreeFormBody()
export class StripeEventPayloadDto {
  [field: string]: unknown;
}

export class StripeEventOutcomeDto {
  @ApiProperty({ example: 'evt_1NbZ3cJv8kRmT0aH' }) id: string;
  @ApiProperty({ example: 'payment_intent.succeeded' }) type: string;
  @ApiProperty({
    enum: ['applied', 'ignored'],
    description:
      '`applied`: it changed an order or a ledger line; `ignored`: nothing to change (a type or an object Sitebase does not act on, or a state already reached)',
  })
  outcome: 'applied' | 'ignored';
  @ApiProperty({ description: 'true when the event id was received before (nothing changed this time)' })
  replayed: boolean;
}
