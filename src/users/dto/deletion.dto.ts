import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty } from '@nestjs/swagger';
import type { DeletionAction, DeletionImpact } from '../../common/deletion/account-data.registry';
import { USER_DELETION_STATUSES, type UserDeletionStatus, UserDeletionEntity } from '../entities/user-deletion.entity';

export class UserDeletionResponseDto {
  @ApiProperty({ ...ID, example: 4 }) id: number;
  @ApiProperty({ enum: USER_DELETION_STATUSES, example: 'scheduled' }) status: UserDeletionStatus;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) requestedAt: string;
  @ApiProperty({
    ...DATE_TIME,
    example: '2026-01-08T00:00:00.000Z',
    description: 'When the erasure runs unless canceled first',
  })
  purgeAfter: string;
  @ApiProperty({ ...DATE_TIME, nullable: true }) canceledAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) completedAt: string | null;
}

export class UserDeletionImpactDto {
  @ApiProperty({ example: 'user_profile_entries' }) resource: string;
  @ApiProperty({ example: 3 }) count: number;
  @ApiProperty({
    enum: ['delete', 'anonymise', 'cancel', 'forfeit'],
    description:
      '`delete`: erased; `anonymise`: kept without who (orders, for accounting); `cancel`: ended; `forfeit`: lost (credits)',
  })
  action: DeletionAction;
}

export class UserDeletionPreviewDto {
  @ApiProperty({ example: 604800, description: 'Seconds between the request and the erasure' })
  gracePeriodSeconds: number;
  @ApiProperty({ type: [UserDeletionImpactDto] }) resources: UserDeletionImpactDto[];
}

export function toUserDeletion(d: UserDeletionEntity): UserDeletionResponseDto {
  return {
    id: d.id,
    status: d.status,
    requestedAt: d.requestedAt.toISOString(),
    purgeAfter: d.purgeAfter.toISOString(),
    canceledAt: d.canceledAt?.toISOString() ?? null,
    completedAt: d.completedAt?.toISOString() ?? null,
  };
}

export function toUserDeletionPreview(gracePeriodSeconds: number, impacts: DeletionImpact[]): UserDeletionPreviewDto {
  return {
    gracePeriodSeconds,
    resources: impacts.map((i) => ({ resource: i.resource, count: i.count, action: i.action })),
  };
}
