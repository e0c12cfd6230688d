import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { IsCurrency, MAX_AMOUNT } from '../../catalog/dto/product.dto';
import { SITE_NAME_PATTERN } from '../../common/auth/principal';
import { IsIdParam, IsTimestamp, MAX_ID, OptionalNotNull } from '../../common/input/dto-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import {
  SUBSCRIPTION_ENTRY_KINDS,
  SUBSCRIPTION_ENTRY_STATUSES,
  type SubscriptionEntryKind,
  type SubscriptionEntryStatus,
  SubscriptionEntryEntity,
} from '../entities/subscription-entry.entity';
import { UserSubscriptionEntity } from '../entities/user-subscription.entity';
import {
  RECURRING_INTERVALS,
  type RecurringInterval,
  SUBSCRIPTION_STATUSES,
  type SubscriptionStatus,
} from '../subscription-status';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** `…/users/{id}/subscriptions/{subId}/…` */
export class UserSubscriptionParamDto {
  @ApiProperty({ example: 'demo' })
  @IsString()
  @Matches(SITE_NAME_PATTERN, { message: 'is not a valid site name' })
  siteName: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_ID, example: 12, description: 'The user' })
  @IsIdParam()
  id: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_ID, example: 3, description: 'The subscription' })
  @IsIdParam()
  subId: number;
}

export class UserSubscriptionQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ enum: SUBSCRIPTION_STATUSES })
  @IsOptional()
  @IsIn(SUBSCRIPTION_STATUSES)
  status?: SubscriptionStatus;
}

export class PauseSubscriptionDto {
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: '2027-02-01T00:00:00.000Z',
    description: 'When it resumes by itself (a queued job); absent: until resumed',
  })
  @OptionalNotNull()
  @IsTimestamp()
  resumesAt?: Date;
}

export class CancelSubscriptionDto {
  @ApiPropertyOptional({
    description:
      'true: it runs to the end of the current period and is canceled then (`cancelAtPeriodEnd`); false or ' +
      'absent: now',
  })
  @OptionalNotNull()
  @IsBoolean()
  atPeriodEnd?: boolean;

  @ApiPropertyOptional({ example: 'Too expensive', maxLength: 500 })
  @OptionalNotNull()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

export class ChangePlanDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_ID, example: 9, description: 'A recurring product' })
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  productId: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_ID, example: 14 })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  variantId?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 10_000, description: 'Absent: the current quantity' })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(10_000)
  quantity?: number;

  @ApiPropertyOptional({
    description:
      'Record the proration of the period left (a credit for the old plan, a charge for the new); absent: true',
  })
  @OptionalNotNull()
  @IsBoolean()
  prorate?: boolean;
}

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

export class UserSubscriptionResponseDto {
  @ApiProperty({ example: 3 }) id: number;
  @ApiProperty({ example: 12 }) userId: number;
  @ApiProperty({ example: 9, description: 'The plan: a recurring product' }) productId: number;
  @ApiProperty({ type: 'integer', nullable: true, example: null }) variantId: number | null;
  @ApiProperty({ example: 1 }) quantity: number;
  @ApiProperty({ enum: SUBSCRIPTION_STATUSES, example: 'active' }) status: SubscriptionStatus;
  @ApiProperty({ example: 2500, description: 'One unit per period, minor units, as taken' }) unitAmount: number;
  @ApiProperty({ example: 'EUR' }) currency: string;
  @ApiProperty({ enum: RECURRING_INTERVALS, example: 'month' }) interval: RecurringInterval;
  @ApiProperty({ example: 1 }) intervalCount: number;
  @ApiProperty({ example: '2026-11-01T00:00:00.000Z' }) currentPeriodStart: string;
  @ApiProperty({ example: '2026-12-01T00:00:00.000Z' }) currentPeriodEnd: string;
  @ApiProperty({ type: String, nullable: true, example: null }) trialEndsAt: string | null;
  @ApiProperty({ example: false, description: 'Canceled at the end of the current period' })
  cancelAtPeriodEnd: boolean;
  @ApiProperty({ type: String, nullable: true, example: null }) canceledAt: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) cancelReason: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) pausedAt: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'A pause’s resume date' })
  resumesAt: string | null;
  @ApiProperty({ example: 'manual', description: 'The payment processor that bills it' }) processor: string;
  @ApiProperty({ type: String, nullable: true, example: null }) processorSubscriptionId: string | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 42, description: 'The order that started it' })
  orderId: number | null;
  @ApiProperty({ example: '2026-11-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ example: '2026-11-01T00:00:00.000Z' }) updatedAt: string;
}

export class SubscriptionEntryDto {
  @ApiProperty({ example: 7 }) id: number;
  @ApiProperty({ example: 3 }) subscriptionId: number;
  @ApiProperty({ enum: SUBSCRIPTION_ENTRY_KINDS, example: 'charge' }) kind: SubscriptionEntryKind;
  @ApiProperty({ example: 1500, description: 'Minor units; a proration is negative when owed to the customer' })
  amount: number;
  @ApiProperty({ example: 'EUR' }) currency: string;
  @ApiProperty({ example: 'Extra seats, March' }) description: string;
  @ApiProperty({ enum: SUBSCRIPTION_ENTRY_STATUSES, example: 'pending' }) status: SubscriptionEntryStatus;
  @ApiProperty({ type: String, nullable: true, example: null, description: '`credits`, or the processor' })
  paidWith: string | null;
  @ApiProperty({ type: 'integer', nullable: true, example: null, description: 'The credit ledger line that paid it' })
  creditEntryId: number | null;
  @ApiProperty({ type: String, nullable: true, example: null }) processorChargeId: string | null;
  @ApiProperty({ example: '2026-11-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ type: String, nullable: true, example: null }) paidAt: string | null;
}

export class PlanChangeDto {
  @ApiProperty({ type: UserSubscriptionResponseDto }) subscription: UserSubscriptionResponseDto;
  @ApiProperty({
    type: [SubscriptionEntryDto],
    description: 'The proration recorded (empty with `prorate: false`): never charged by Sitebase',
  })
  prorations: SubscriptionEntryDto[];
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

export function toSubscriptionResponse(s: UserSubscriptionEntity): UserSubscriptionResponseDto {
  return {
    id: s.id,
    userId: s.userId,
    productId: s.productId,
    variantId: s.variantId,
    quantity: s.quantity,
    status: s.status,
    unitAmount: s.unitAmount,
    currency: s.currency,
    interval: s.interval,
    intervalCount: s.intervalCount,
    currentPeriodStart: s.currentPeriodStart.toISOString(),
    currentPeriodEnd: s.currentPeriodEnd.toISOString(),
    trialEndsAt: iso(s.trialEndsAt),
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    canceledAt: iso(s.canceledAt),
    cancelReason: s.cancelReason,
    pausedAt: iso(s.pausedAt),
    resumesAt: iso(s.resumesAt),
    processor: s.processor,
    processorSubscriptionId: s.processorSubscriptionId,
    orderId: s.orderId,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
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
    creditEntryId: e.creditEntryId,
    processorChargeId: e.processorChargeId,
    createdAt: e.createdAt.toISOString(),
    paidAt: iso(e.paidAt),
  };
}
