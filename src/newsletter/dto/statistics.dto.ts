import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';
import { IsTimestamp, MAX_ID, toBoolean, toInteger } from '../../common/input/dto-rules';
import { CAMPAIGN_STATUSES, type CampaignStatus } from '../entities/campaign.entity';

export class StatisticsQueryDto {
  @ApiPropertyOptional({ ...ID, description: 'One campaign only. Example: `1`' })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  campaignId?: number;

  @ApiPropertyOptional({
    ...ID,
    description: 'One list: its subscribers, growth and campaigns. Example: `1`',
  })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  listId?: number;

  @ApiPropertyOptional({ description: 'From this date-time (RFC 3339), inclusive; absent: 30 days before `to`' })
  @IsOptional()
  @IsTimestamp()
  from?: Date;

  @ApiPropertyOptional({ description: 'Up to this date-time (RFC 3339), exclusive; absent: now' })
  @IsOptional()
  @IsTimestamp()
  to?: Date;

  @ApiPropertyOptional({ description: 'Count machines’ opens and clicks in the rates too (absent: false)' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  includeMachines?: boolean;
}

export class SubscriberCountsDto {
  @ApiProperty({ example: 3 }) pending: number;
  @ApiProperty({ example: 120 }) active: number;
  @ApiProperty({ example: 4 }) unsubscribed: number;
}

export class GrowthDayDto {
  @ApiProperty({ example: '2026-11-24', description: 'A UTC day' }) day: string;
  @ApiProperty({ example: 12, description: 'Memberships that became active' }) joined: number;
  @ApiProperty({ example: 1, description: 'Memberships that became unsubscribed' }) unsubscribed: number;
}

export class EngagementDto {
  @ApiProperty({ example: 60, description: 'People (first event each)' }) unique: number;
  @ApiProperty({ example: 75 }) total: number;
  @ApiProperty({ example: 30, description: 'Recipients with a machine’s event' }) machineUnique: number;
  @ApiProperty({ example: 41 }) machineTotal: number;
}

export class CampaignRatesDto {
  @ApiProperty({ example: 0.98, description: 'delivered / sent' }) delivery: number;
  @ApiProperty({ example: 0.5, description: 'unique opens / delivered' }) open: number;
  @ApiProperty({ example: 0.2, description: 'unique clicks / delivered' }) click: number;
  @ApiProperty({ example: 0.4, description: 'unique clicks / unique opens' }) clickToOpen: number;
  @ApiProperty({ example: 0.01, description: 'unsubscribes / delivered' }) unsubscribe: number;
  @ApiProperty({ example: 0.01, description: 'bounces / sent' }) bounce: number;
  @ApiProperty({ example: 0.001, description: 'complaints / delivered' }) complaint: number;
}

export class TopLinkDto {
  @ApiProperty({ example: 'https://demo.example/post' }) url: string;
  @ApiProperty({ example: 20, description: 'By people' }) clicks: number;
  @ApiProperty({ example: 4 }) machineClicks: number;
}

export class CampaignStatisticsDto {
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ example: 'November digest' }) name: string;
  @ApiProperty({ enum: CAMPAIGN_STATUSES, example: 'sent' }) status: CampaignStatus;
  @ApiProperty({ ...DATE_TIME, nullable: true, example: '2026-11-24T10:00:00.000Z' }) startedAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true, example: '2026-11-24T10:05:00.000Z' }) sentAt: string | null;
  @ApiProperty({ example: 120, description: 'Handed to the email module' }) sent: number;
  @ApiProperty({ example: 118 }) delivered: number;
  @ApiProperty({ example: 2 }) failed: number;
  @ApiProperty({
    example: 1,
    description: 'Copies refused for good (5xx) or bounced later (a DSN or a provider’s report), each counted once',
  })
  bounces: number;
  @ApiProperty({ example: 0, description: 'Copies their recipient reported as spam (ARF, a provider’s report)' })
  complaints: number;
  @ApiProperty({ type: EngagementDto }) opens: EngagementDto;
  @ApiProperty({ type: EngagementDto }) clicks: EngagementDto;
  @ApiProperty({ example: 1, description: 'Recipients who left a list within 30 days of this mail' })
  unsubscribes: number;
  @ApiProperty({ type: CampaignRatesDto, description: 'Machines left out unless includeMachines' })
  rates: CampaignRatesDto;
  @ApiProperty({ type: [TopLinkDto], description: 'Up to 10, most clicked by people first' }) topLinks: TopLinkDto[];
}

export class StatisticsResponseDto {
  @ApiProperty({ ...DATE_TIME, example: '2026-10-25T00:00:00.000Z' }) from: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-24T10:00:00.000Z' }) to: string;
  @ApiProperty({
    type: SubscriberCountsDto,
    description:
      'Memberships by status: of `listId`, else of every list of the site (an address on two lists counts twice)',
  })
  subscribers: SubscriberCountsDto;
  @ApiProperty({ type: [GrowthDayDto], description: 'Days with a change, oldest first' }) growth: GrowthDayDto[];
  @ApiProperty({
    type: [CampaignStatisticsDto],
    description:
      '`campaignId`, else the campaigns started in the range (of `listId` when given), newest first, up to 50',
  })
  campaigns: CampaignStatisticsDto[];
}
