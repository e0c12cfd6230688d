import { ID, ID_LIST } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMinSize,
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
import { IsIdSet, IsTimestamp, OptionalNotNull, toInteger } from '../../common/input/dto-rules';
import { IsMailAddress } from '../../common/input/mail-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import { MEMBERSHIP_STATUSES, type MembershipStatus } from '../entities/membership.entity';
import { DELIVERABILITIES, SubscriptionEntity, type Deliverability } from '../entities/subscription.entity';
import { Checked } from '../../common/input/checked';

/** Addresses are compared and stored trimmed and in lower case. */
export const normaliseEmail = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? value.trim().toLowerCase() : value;

/** `attributes`: a small JSON object (plan, city), not a store. */
export const ATTRIBUTE_LIMITS = { maxDepth: 3, maxBytes: 4096 } as const;
export const ATTRIBUTES_DOC = {
  type: 'object',
  additionalProperties: true,
  example: { plan: 'pro', city: 'Lyon' },
  description: `A JSON object of at most ${ATTRIBUTE_LIMITS.maxDepth} levels and ${ATTRIBUTE_LIMITS.maxBytes} bytes`,
} as const;
export const NAME_MAX = 200;
export const REASON_MAX = 500;
const ATTRIBUTE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The filters of the subscription list, also the `filter` of a bulk action. */
export class SubscriptionFilterDto {
  @ApiPropertyOptional({
    ...ID,
    minimum: 1,
    description: 'Members of this list (any status unless `status`)',
  })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  listId?: number;

  @ApiPropertyOptional({
    enum: MEMBERSHIP_STATUSES,
    description: 'A membership in this status (of `listId` when given)',
  })
  @IsOptional()
  @IsIn(MEMBERSHIP_STATUSES)
  status?: MembershipStatus;

  @ApiPropertyOptional({ enum: DELIVERABILITIES })
  @IsOptional()
  @IsIn(DELIVERABILITIES)
  deliverability?: Deliverability;

  @ApiPropertyOptional({ example: 'example.com', maxLength: 254, description: 'Part of the address (any case)' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(254)
  emailContains?: string;

  @ApiPropertyOptional({ example: 'plan', description: 'With `attributeValue`: the attribute that must equal it' })
  @IsOptional()
  @IsString()
  @Matches(ATTRIBUTE_NAME, { message: 'must be 1-64 letters, digits, dots, dashes or underscores' })
  attributeName?: string;

  @ApiPropertyOptional({ example: 'pro', maxLength: 200, description: 'A string value of `attributeName`' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  attributeValue?: string;

  @ApiPropertyOptional({ description: 'Created at or after this date-time (RFC 3339)' })
  @IsOptional()
  @IsTimestamp()
  createdFrom?: Date;

  @ApiPropertyOptional({ description: 'Created before this date-time (RFC 3339), exclusive' })
  @IsOptional()
  @IsTimestamp()
  createdTo?: Date;
}

/** `?limit&cursor` and the filters; newest first. */
export class SubscriptionQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({
    ...ID,
    minimum: 1,
    description: 'Members of this list (any status unless `status`)',
  })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  listId?: number;

  @ApiPropertyOptional({
    enum: MEMBERSHIP_STATUSES,
    description: 'A membership in this status (of `listId` when given)',
  })
  @IsOptional()
  @IsIn(MEMBERSHIP_STATUSES)
  status?: MembershipStatus;

  @ApiPropertyOptional({ enum: DELIVERABILITIES })
  @IsOptional()
  @IsIn(DELIVERABILITIES)
  deliverability?: Deliverability;

  @ApiPropertyOptional({ maxLength: 254, description: 'Part of the address (any case). Example: `example.com`' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(254)
  emailContains?: string;

  @ApiPropertyOptional({ description: 'With `attributeValue`: the attribute that must equal it. Example: `plan`' })
  @IsOptional()
  @IsString()
  @Matches(ATTRIBUTE_NAME, { message: 'must be 1-64 letters, digits, dots, dashes or underscores' })
  attributeName?: string;

  @ApiPropertyOptional({ maxLength: 200, description: 'A string value of `attributeName`. Example: `pro`' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  attributeValue?: string;

  @ApiPropertyOptional({ description: 'Created at or after this date-time (RFC 3339)' })
  @IsOptional()
  @IsTimestamp()
  createdFrom?: Date;

  @ApiPropertyOptional({ description: 'Created before this date-time (RFC 3339), exclusive' })
  @IsOptional()
  @IsTimestamp()
  createdTo?: Date;
}

export class ByEmailQueryDto {
  @ApiProperty({ example: 'ada@example.com', description: 'Any case' })
  @Transform(normaliseEmail)
  @IsMailAddress()
  email: string;
}

export class ListMembershipDto {
  @ApiPropertyOptional({ ...ID_LIST, example: [1], description: 'Lists to join (at most 100)' })
  @Checked('other fields', 'Add or remove at least one list; each id names a list of this site.')
  @OptionalNotNull()
  @IsIdSet(100)
  add?: number[];

  @Checked('other fields', 'Add or remove at least one list; each id names a list of this site.')
  @ApiPropertyOptional({ ...ID_LIST, example: [2], description: 'Lists to leave: the membership is removed' })
  @OptionalNotNull()
  @IsIdSet(100)
  remove?: number[];

  @ApiPropertyOptional({
    example: false,
    description:
      'The person agreed to receive these lists (you keep the proof): joins are `active` at once. ' +
      'Absent or false: `pending`, and a confirmation is mailed for lists with double opt-in',
  })
  @OptionalNotNull()
  @IsBoolean()
  consent?: boolean;

  @ApiPropertyOptional({ example: 'Ticked "Send me the weekly digest" at checkout', maxLength: REASON_MAX })
  @OptionalNotNull()
  @IsString()
  @MaxLength(REASON_MAX)
  consentWording?: string;
}

export class ChangeStatusDto {
  @Checked('other fields', 'Give `status`, `deliverability` or both.')
  @ApiPropertyOptional({
    enum: ['unsubscribed'],
    description: 'Memberships to move (only `unsubscribed`: an operator never subscribes anyone back)',
  })
  @OptionalNotNull()
  @IsIn(MEMBERSHIP_STATUSES)
  status?: MembershipStatus;

  @ApiPropertyOptional({ ...ID_LIST, example: [1], description: 'The lists of `status`; absent: all its lists' })
  @OptionalNotNull()
  @IsIdSet(100)
  @Checked('other fields', 'Goes with `status`; each id names a list of this site.')
  @ArrayMinSize(1)
  listIds?: number[];

  @Checked('other fields', 'Give `status`, `deliverability` or both.')
  @ApiPropertyOptional({ enum: DELIVERABILITIES, description: "The address's deliverability" })
  @OptionalNotNull()
  @IsIn(DELIVERABILITIES)
  deliverability?: Deliverability;

  @ApiProperty({ example: 'Asked by phone to stop', maxLength: REASON_MAX })
  @IsString()
  @IsNotEmpty()
  @MaxLength(REASON_MAX)
  reason: string;
}

export class MembershipResponseDto {
  @ApiProperty({ ...ID, example: 1 }) listId: number;
  @ApiProperty({ enum: MEMBERSHIP_STATUSES, example: 'active' }) status: MembershipStatus;
  @ApiProperty({ ...DATE_TIME, nullable: true, example: '2026-11-24T10:00:00.000Z' }) subscribedAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) unsubscribedAt: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Why it last moved (operator)' })
  reason: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-24T10:00:00.000Z' }) updatedAt: string;
}

export class ConsentResponseDto {
  @ApiProperty({ example: '2026-11-24T10:00:00.000Z' }) at: string;
  @ApiProperty({ type: String, nullable: true, example: '203.0.113.7' }) ip: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Mozilla/5.0' }) userAgent: string | null;
  @ApiProperty({ ...ID_LIST, example: [1] }) listIds: number[];
  @ApiProperty({ type: String, nullable: true, example: 'Send me the weekly digest' }) wording: string | null;
}

export class SubscriptionResponseDto {
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ example: 'ada@example.com' }) email: string;
  @ApiProperty({ example: 'Ada Lovelace' }) name: string;
  @ApiProperty(ATTRIBUTES_DOC) attributes: Record<string, unknown>;
  @ApiProperty({ enum: DELIVERABILITIES, example: 'deliverable' }) deliverability: Deliverability;
  @ApiProperty({ example: 'form', description: '`form`, `api`, `import`, `sync`' }) source: string;
  @ApiProperty({ type: [MembershipResponseDto] }) lists: MembershipResponseDto[];
  // `ConsentResponseDto | null` written out: OpenAPI 3.0 has no nullable $ref.
  @ApiProperty({
    type: 'object',
    nullable: true,
    description: 'Evidence of the last consent: when, from where, for which lists, and the words shown',
    properties: {
      at: { type: 'string', format: 'date-time' },
      ip: { type: 'string', nullable: true },
      userAgent: { type: 'string', nullable: true },
      listIds: { type: 'array', items: { type: 'integer' } },
      wording: { type: 'string', nullable: true },
    },
    required: ['at', 'ip', 'userAgent', 'listIds', 'wording'],
  })
  consent: ConsentResponseDto | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-24T10:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-24T10:00:00.000Z' }) updatedAt: string;
}

/** One membership as services hand it out. */
export interface MembershipView {
  listId: number;
  status: MembershipStatus;
  subscribedAt: Date | null;
  unsubscribedAt: Date | null;
  reason: string | null;
  updatedAt: Date;
}

export interface SubscriptionView {
  subscription: SubscriptionEntity;
  memberships: MembershipView[];
}

export function toSubscriptionResponse({ subscription: s, memberships }: SubscriptionView): SubscriptionResponseDto {
  return {
    id: s.id,
    email: s.email,
    name: s.name,
    attributes: s.attributes,
    deliverability: s.deliverability,
    source: s.source,
    lists: memberships.map((m) => ({
      listId: m.listId,
      status: m.status,
      subscribedAt: m.subscribedAt?.toISOString() ?? null,
      unsubscribedAt: m.unsubscribedAt?.toISOString() ?? null,
      reason: m.reason,
      updatedAt: m.updatedAt.toISOString(),
    })),
    consent: s.consentAt
      ? {
          at: s.consentAt.toISOString(),
          ip: s.consentIp,
          userAgent: s.consentUserAgent,
          listIds: s.consentListIds ?? [],
          wording: s.consentWording,
        }
      : null,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
