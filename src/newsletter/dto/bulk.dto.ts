import { ID, ID_LIST } from '../../common/http/api-id';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsIdSet, OptionalNotNull } from '../../common/input/dto-rules';
import { IsMailAddress } from '../../common/input/mail-rules';
import { DELIVERABILITIES, type Deliverability } from '../entities/subscription.entity';
import { REASON_MAX, SubscriptionFilterDto } from './subscription.dto';
import { Checked } from '../../common/input/checked';

export const BULK_ACTIONS = [
  'unsubscribe',
  'delete',
  'set_deliverability',
  'add_to_lists',
  'remove_from_lists',
] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];
export const BULK_MAX_IDS = 1000;
export const SYNC_MAX_EMAILS = 10_000;

export class BulkDto {
  @ApiProperty({ enum: BULK_ACTIONS, example: 'unsubscribe' })
  @IsIn(BULK_ACTIONS)
  action: BulkAction;

  @ApiPropertyOptional({
    ...ID_LIST,
    example: [1, 2],
    description: `Subscriptions (at most ${BULK_MAX_IDS}); or give \`filter\``,
  })
  @OptionalNotNull()
  @Checked('other fields', 'Give either `ids` or `filter`.')
  @IsIdSet(BULK_MAX_IDS)
  @ArrayMinSize(1)
  ids?: number[];

  @ApiPropertyOptional({
    type: SubscriptionFilterDto,
    description: 'Every subscription the list route would show with these filters',
  })
  @OptionalNotNull()
  @Checked('other fields', 'Give either `ids` or `filter`.')
  @IsObject()
  @ValidateNested()
  @Type(() => SubscriptionFilterDto)
  filter?: SubscriptionFilterDto;

  @ApiPropertyOptional({
    ...ID_LIST,
    example: [1],
    description: 'add_to_lists, remove_from_lists: the lists; unsubscribe: these lists only (absent: all)',
  })
  @OptionalNotNull()
  @IsIdSet(100)
  @Checked('stored data', 'Each id names a list of this site.')
  @ArrayMinSize(1)
  listIds?: number[];

  @ApiPropertyOptional({ enum: DELIVERABILITIES, description: 'set_deliverability: the new value' })
  @OptionalNotNull()
  @IsIn(DELIVERABILITIES)
  deliverability?: Deliverability;

  @ApiPropertyOptional({
    example: false,
    description: 'add_to_lists: the people agreed (active); else pending, no mail',
  })
  @OptionalNotNull()
  @IsBoolean()
  consent?: boolean;

  @ApiPropertyOptional({ example: 'Cleanup of 2026', maxLength: REASON_MAX })
  @OptionalNotNull()
  @IsString()
  @MaxLength(REASON_MAX)
  reason?: string;
}

export class BulkResultDto {
  @ApiProperty({ example: 120, description: 'Subscriptions the ids or the filter named' }) matched: number;
  @ApiProperty({ example: 100, description: 'Subscriptions the action changed' }) changed: number;
  @ApiProperty({ example: 20, description: 'Matched but left as they were (already so, or not allowed)' })
  skipped: number;
  @ApiProperty({ example: 1, description: 'Transactions used (one per batch of 1,000)' }) batches: number;
}

export class SyncDto {
  @ApiProperty({ ...ID, example: 1, description: 'The list whose members become exactly the given set' })
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  listId: number;

  @ApiPropertyOptional({
    type: [String],
    example: ['ada@example.com'],
    description: `The addresses (at most ${SYNC_MAX_EMAILS}, any case)`,
  })
  @OptionalNotNull()
  @Transform(({ value }: { value: unknown }) =>
    Array.isArray(value) ? value.map((v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : v)) : value,
  )
  @Checked('other fields', 'Give `emails` or `fromUsers`.')
  @IsMailAddress({ each: true })
  @ArrayMaxSize(SYNC_MAX_EMAILS)
  @IsArray()
  emails?: string[];

  @Checked('other fields', 'Give `emails` or `fromUsers`.')
  @ApiPropertyOptional({
    example: false,
    description: 'Also the site users who opted in (`metadata.newsletter` true on an active user)',
  })
  @OptionalNotNull()
  @IsBoolean()
  fromUsers?: boolean;

  @ApiPropertyOptional({
    example: false,
    description: 'The people agreed: new members are active; else pending, no mail',
  })
  @OptionalNotNull()
  @IsBoolean()
  consent?: boolean;
}

export class SyncResultDto {
  @ApiProperty({ example: 10, description: 'Addresses that joined the list (or were activated with consent)' })
  added: number;
  @ApiProperty({ example: 2, description: 'Members not in the set, unsubscribed from the list' }) unsubscribed: number;
  @ApiProperty({ example: 40, description: 'Addresses already on the list as asked' }) unchanged: number;
  @ApiProperty({
    example: 1,
    description: 'Addresses left out: they left the list, complained, or are suppressed',
  })
  skipped: number;
}
