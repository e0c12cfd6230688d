import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidationArguments,
} from 'class-validator';
import { IsCurrency, MAX_AMOUNT } from '../../catalog/dto/product.dto';
import { OptionalNotNull } from '../../common/input/dto-rules';
import {
  SUBSCRIPTION_ENTRY_KINDS,
  SUBSCRIPTION_ENTRY_STATUSES,
  type SubscriptionEntryKind,
  type SubscriptionEntryStatus,
  SubscriptionEntryEntity,
} from '../entities/subscription-entry.entity';
import { declareSchemaRule } from '../../common/openapi/openapi-rules';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const other = (args: ValidationArguments) => (args.object as Record<string, unknown>)[args.constraints[0] as string];

declareSchemaRule('notTogetherWith', ([field]) => ({
  described: `Not together with \`${String(field)}: true\`.`,
  checked: 'other fields',
}));
declareSchemaRule('onlyWith', ([field]) => ({
  described: `Only with \`${String(field)}: true\`.`,
  checked: 'other fields',
}));

/** `true` here and `true` in `field` together are refused. */
const NotTogetherWith = (field: string) =>
  ValidateBy({
    name: 'notTogetherWith',
    constraints: [field],
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => !(value === true && args && other(args) === true),
      defaultMessage: () => `cannot be combined with ${field}`,
    },
  });

/** Only with `field: true`. */
const OnlyWith = (field: string) =>
  ValidateBy({
    name: 'onlyWith',
    constraints: [field],
    validator: {
      validate: (_value: unknown, args?: ValidationArguments) => !!args && other(args) === true,
      defaultMessage: () => `is only taken with ${field}: true`,
    },
  });

export class CreateChargeDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_AMOUNT, example: 1500, description: 'Minor units' })
  @IsInt()
  @Min(1)
  @Max(MAX_AMOUNT)
  amount: number;

  @ApiPropertyOptional({ example: 'EUR', description: 'ISO 4217; must be the subscription’s (absent: it is)' })
  @OptionalNotNull()
  @IsCurrency()
  currency?: string;

  @ApiProperty({ example: 'Extra seats, March', maxLength: 500 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  description: string;

  @ApiPropertyOptional({
    description:
      'Pay it from the user’s credits (one credit per minor unit) when the balance allows; otherwise, or when ' +
      'false or absent, it is left `pending` for the payment processor',
  })
  @OptionalNotNull()
  @IsBoolean()
  payWithCredits?: boolean;
}

/** How a pending charge is paid; none of the three: the processor is asked again. */
export class PayChargeDto {
  @ApiPropertyOptional({
    description:
      'Pay what it still owes from the user’s credits (one credit per minor unit); a short balance is a 409 ' +
      '`insufficient_credits` and takes nothing. Not with `paidOutOfBand`.',
  })
  @OptionalNotNull()
  @IsBoolean()
  payWithCredits?: boolean;

  @ApiPropertyOptional({
    description:
      'It was paid outside Sitebase (a bank transfer, cash): `paid` with `out_of_band`. Not with `payWithCredits`.',
  })
  @OptionalNotNull()
  @IsBoolean()
  @NotTogetherWith('payWithCredits')
  paidOutOfBand?: boolean;

  @ApiPropertyOptional({
    example: 'Transfer 2026-11-30 #4411',
    maxLength: 200,
    description: 'With `paidOutOfBand`: the payment’s reference, kept as the charge’s `processorChargeId`',
  })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @OnlyWith('paidOutOfBand')
  reference?: string;
}

export class ChargeFailureDto {
  @ApiProperty({
    example: 'card_declined',
    description:
      'The processor’s code of the last failed attempt: `card_declined`, `authentication_required` (the customer ' +
      'must pay on-session), `no_payment_method`, `processor_not_connected`, …',
  })
  code: string;
  @ApiProperty({ example: 'Your card was declined.' }) message: string;
  @ApiProperty({ type: 'integer', example: 1, description: 'Failed attempts so far' }) attempts: number;
  @ApiProperty({ ...DATE_TIME, example: '2026-12-01T00:00:00.000Z' }) failedAt: string;
  @ApiProperty({
    ...DATE_TIME,
    nullable: true,
    example: '2026-12-02T00:00:00.000Z',
    description: 'When it is tried again (docs/payments.md, "Failures and retries"); null: no retry is planned',
  })
  nextAttemptAt: string | null;
}

export class SubscriptionEntryDto {
  @ApiProperty({ ...ID, example: 7 }) id: number;
  @ApiProperty({ ...ID, example: 3 }) subscriptionId: number;
  @ApiProperty({
    enum: SUBSCRIPTION_ENTRY_KINDS,
    example: 'renewal',
    description:
      '`initial` (the first period, paid by its order), `renewal` (a later period), `proration` (a plan change), ' +
      '`charge` (an operator’s ad-hoc charge, not part of a period)',
  })
  kind: SubscriptionEntryKind;
  @ApiProperty({ example: 1500, description: 'Minor units; a proration is negative when credited to the customer' })
  amount: number;
  @ApiProperty({ example: 'EUR' }) currency: string;
  @ApiProperty({ example: 'Period 2026-11-01 to 2026-12-01' }) description: string;
  @ApiProperty({ enum: SUBSCRIPTION_ENTRY_STATUSES, example: 'pending', description: '`recorded`: a credit' })
  status: SubscriptionEntryStatus;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: '`order`, `balance`, `credits`, `out_of_band` or the processor',
  })
  paidWith: string | null;
  @ApiProperty({ example: 0, description: 'The part of `amount` paid from the subscription’s balance' })
  creditApplied: number;
  @ApiProperty({
    ...DATE_TIME,
    nullable: true,
    example: '2026-11-01T00:00:00.000Z',
    description: 'The period it starts or adjusts; null for an ad-hoc charge',
  })
  periodStart: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true, example: '2026-12-01T00:00:00.000Z' }) periodEnd: string | null;
  @ApiProperty({ ...ID, nullable: true, example: null, description: 'The credit ledger line that paid it' })
  creditEntryId: number | null;
  @ApiProperty({ type: String, nullable: true, example: null }) processorChargeId: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, nullable: true }) paidAt: string | null;
  @ApiPropertyOptional({
    type: ChargeFailureDto,
    description: 'Present once a processor’s attempt at it failed (the last failure; kept after it is paid)',
  })
  failure?: ChargeFailureDto;
}

export class ChargeResponseDto {
  @ApiProperty({ type: SubscriptionEntryDto }) charge: SubscriptionEntryDto;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: null,
    description: 'The credit balance after a charge paid from credits; null otherwise',
  })
  creditBalance: number | null;
}

export function toSubscriptionEntry(e: SubscriptionEntryEntity): SubscriptionEntryDto {
  return {
    id: e.id,
    subscriptionId: e.subscriptionId,
    kind: e.kind,
    amount: e.amount,
    currency: e.currency,
    description: e.description,
    status: e.status,
    paidWith: e.paidWith,
    creditApplied: e.creditApplied,
    periodStart: iso(e.periodStart),
    periodEnd: iso(e.periodEnd),
    creditEntryId: e.creditEntryId,
    processorChargeId: e.processorChargeId,
    createdAt: e.createdAt.toISOString(),
    paidAt: iso(e.paidAt),
    ...(e.chargeAttempts > 0
      ? {
          failure: {
            code: e.failureCode ?? 'failed',
            message: e.failureMessage ?? '',
            attempts: e.chargeAttempts,
            failedAt: (e.failedAt ?? e.createdAt).toISOString(),
            nextAttemptAt: iso(e.nextAttemptAt),
          },
        }
      : {}),
  };
}
