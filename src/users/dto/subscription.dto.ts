import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { SiteNameParamDto } from '../../common/http/params';
import { IsIdParam, IsTimestamp, MAX_ID, OptionalNotNull } from '../../common/input/dto-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import { UserSubscriptionEntity } from '../entities/user-subscription.entity';
import {
  RECURRING_INTERVALS,
  type RecurringInterval,
  SUBSCRIPTION_STATUSES,
  type SubscriptionStatus,
} from '../subscriptions/subscription-status';
import { SubscriptionEntryEntity } from '../entities/subscription-entry.entity';
import { SubscriptionEntryDto, toSubscriptionEntry } from './subscription-charge.dto';
import { Checked } from '../../common/input/checked';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** What every subscription move's description ends with. */
export const FORBIDDEN_MOVES =
  'A move the subscription’s status does not allow is a 409 `transition_forbidden` (docs/users.md has the table).';

/** `…/users/{id}/subscriptions/{subId}/…` */
export class UserSubscriptionParamDto extends SiteNameParamDto {
  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 1, description: 'The user' })
  @IsIdParam()
  id: number;

  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 1, description: 'The subscription' })
  @IsIdParam()
  subId: number;
}

/** `…/users/{id}/subscriptions/{subId}/charges/{chargeId}/…` */
export class SubscriptionChargeParamDto extends UserSubscriptionParamDto {
  // 2: the pending charge the charge example makes (line 1 is the demo subscription's paid first period).
  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 2, description: 'The ledger line' })
  @IsIdParam()
  chargeId: number;
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
  @Checked('time', 'In the future.')
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

/** The owner's plan change: always prorated (no `prorate` field, so sending one is a 400). */
export class ChangeMyPlanDto {
  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 1, description: 'A recurring product' })
  @IsInt()
  @Min(1)
  @Checked('stored data', 'Names a recurring product of this site.')
  @Max(MAX_ID)
  productId: number;

  @ApiPropertyOptional({ ...ID, minimum: 1, maximum: MAX_ID, example: 1 })
  @OptionalNotNull()
  @Checked('stored data', 'Names a variant of that product.')
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
}

/** An operator's plan change, who may waive the proration. */
export class ChangePlanDto extends ChangeMyPlanDto {
  @ApiPropertyOptional({
    description:
      'Prorate the period left: a credit for the unused old plan and a charge for the new one; absent: true. ' +
      'false: nothing now, the new price from the next renewal (a new billing interval is still charged in full)',
  })
  @OptionalNotNull()
  @IsBoolean()
  prorate?: boolean;
}

export class UserSubscriptionResponseDto {
  @ApiProperty({ ...ID, example: 3 }) id: number;
  @ApiProperty({ ...ID, example: 12 }) userId: number;
  @ApiProperty({ ...ID, example: 9, description: 'The plan: a recurring product' }) productId: number;
  @ApiProperty({ ...ID, nullable: true, example: null }) variantId: number | null;
  @ApiProperty({ example: 1 }) quantity: number;
  @ApiProperty({ enum: SUBSCRIPTION_STATUSES, example: 'active' }) status: SubscriptionStatus;
  @ApiProperty({ example: 2500, description: 'One unit per period, minor units, as taken' }) unitAmount: number;
  @ApiProperty({ example: 'EUR' }) currency: string;
  @ApiProperty({ enum: RECURRING_INTERVALS, example: 'month' }) interval: RecurringInterval;
  @ApiProperty({ example: 1 }) intervalCount: number;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-01T00:00:00.000Z' }) currentPeriodStart: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-12-01T00:00:00.000Z' }) currentPeriodEnd: string;
  @ApiProperty({ ...DATE_TIME, nullable: true }) trialEndsAt: string | null;
  @ApiProperty({ example: false, description: 'Canceled at the end of the current period' })
  cancelAtPeriodEnd: boolean;
  @ApiProperty({ ...DATE_TIME, nullable: true }) canceledAt: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'The owner’s or operator’s reason; `unpaid` when a period charge was left unpaid',
  })
  cancelReason: string | null;
  @ApiProperty({
    ...DATE_TIME,
    nullable: true,
    example: null,
    description:
      'While `past_due`: when it is canceled (`unpaid`) unless its period charges are paid first, the end of the ' +
      'site’s dunning window (`dunningDays` after the charge fell due) or of the period if sooner; null otherwise',
  })
  unpaidCancelAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) pausedAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true, description: 'A pause’s resume date' })
  resumesAt: string | null;
  @ApiProperty({
    example: 0,
    description: 'Minor units owed to the customer (credited prorations), spent on their next period charges',
  })
  balance: number;
  @ApiProperty({ example: 'manual', description: 'The payment processor that bills it' }) processor: string;
  @ApiProperty({ type: String, nullable: true, example: null }) processorSubscriptionId: string | null;
  @ApiProperty({ ...ID, nullable: true, example: 42, description: 'The order that started it' })
  orderId: number | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-01T00:00:00.000Z' }) updatedAt: string;
}

export class PlanChangeDto {
  @ApiProperty({ type: UserSubscriptionResponseDto }) subscription: UserSubscriptionResponseDto;
  @ApiProperty({
    type: [SubscriptionEntryDto],
    description:
      'The proration lines the change wrote: the credit for the unused old plan (negative, to the balance) and, ' +
      'within the same billing interval, the new plan’s charge for the rest of the period; empty in a trial or ' +
      'with `prorate: false`',
  })
  prorations: SubscriptionEntryDto[];
  @ApiProperty({
    type: [SubscriptionEntryDto],
    description:
      'Every line the change wrote, in order: its prorations and, when a new billing interval starts a new period ' +
      'now, that period’s `renewal` charge',
  })
  entries: SubscriptionEntryDto[];
}

/** A plan change as its routes answer it. */
export function toPlanChange(change: {
  subscription: UserSubscriptionEntity;
  entries: SubscriptionEntryEntity[];
}): PlanChangeDto {
  const entries = change.entries.map(toSubscriptionEntry);
  return {
    subscription: toSubscriptionResponse(change.subscription),
    prorations: entries.filter((e) => e.kind === 'proration'),
    entries,
  };
}

export class PaidChargeDto {
  @ApiProperty({ type: SubscriptionEntryDto }) charge: SubscriptionEntryDto;
  @ApiProperty({ type: UserSubscriptionResponseDto, description: 'After the payment (`active` again once settled)' })
  subscription: UserSubscriptionResponseDto;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: null,
    description: 'The credit balance after paying from credits; null otherwise',
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
    unpaidCancelAt: iso(s.unpaidCancelAt),
    pausedAt: iso(s.pausedAt),
    resumesAt: iso(s.resumesAt),
    balance: s.balance,
    processor: s.processor,
    processorSubscriptionId: s.processorSubscriptionId,
    orderId: s.orderId,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
