import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty } from '@nestjs/swagger';
import { DeletionAction, DeletionImpact } from '../../common/deletion/account-data.registry';
import { AccountDeletionEntity, DeletionStatus } from '../entities/account-deletion.entity';

export class AccountDeletionResponseDto {
  @ApiProperty({ ...ID, example: 3 }) id: number;
  @ApiProperty({ enum: ['scheduled', 'canceled', 'purging', 'completed'] }) status: DeletionStatus;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) requestedAt: string;
  @ApiProperty({
    ...DATE_TIME,
    example: '2026-01-08T00:00:00.000Z',
    description: 'When the purge runs unless canceled first',
  })
  purgeAfter: string;
  @ApiProperty({ ...DATE_TIME, nullable: true }) canceledAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) completedAt: string | null;
}

export function toDeletionResponse(d: AccountDeletionEntity): AccountDeletionResponseDto {
  return {
    id: d.id,
    status: d.status,
    requestedAt: d.requestedAt.toISOString(),
    purgeAfter: d.purgeAfter.toISOString(),
    canceledAt: d.canceledAt?.toISOString() ?? null,
    completedAt: d.completedAt?.toISOString() ?? null,
  };
}

export class DeletionImpactDto {
  @ApiProperty({ example: 'sites' }) resource: string;
  @ApiProperty({ example: 2 }) count: number;
  @ApiProperty({ enum: ['delete', 'anonymise', 'cancel', 'forfeit'], description: 'What the purge does to these rows' })
  action: DeletionAction;
}

export class DeletionPreviewResponseDto {
  @ApiProperty({ example: 604800, description: 'Seconds between the request and the purge' })
  gracePeriodSeconds: number;
  @ApiProperty({ type: [DeletionImpactDto] }) resources: DeletionImpactDto[];
}

export function toPreviewResponse(gracePeriodSeconds: number, impacts: DeletionImpact[]): DeletionPreviewResponseDto {
  return {
    gracePeriodSeconds,
    resources: impacts.map((i) => ({ resource: i.resource, count: i.count, action: i.action })),
  };
}
