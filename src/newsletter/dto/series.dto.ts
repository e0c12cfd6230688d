import { ID, ID_LIST } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMinSize, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsIdSet, NestedArray, OptionalNotNull } from '../../common/input/dto-rules';
import { IsHeaderText } from '../../common/input/mail-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import { EnrollmentStatus } from '../entities/series-enrollment.entity';
import { SeriesStepEntity } from '../entities/series-step.entity';
import { SERIES_STATUSES, SeriesEntity, type SeriesStatus } from '../entities/series.entity';
import { Checked } from '../../common/input/checked';

export const SERIES_LIMITS = {
  name: 200,
  lists: 20,
  steps: 50,
  subject: 200,
  previewText: 500,
  html: 200_000,
  /** A year. */
  delaySeconds: 365 * 24 * 3600,
} as const;

export class SeriesStepDto {
  @ApiPropertyOptional({
    ...ID,
    example: 1,
    description:
      'On update: the id of a step to keep (its place in the order is where it is in this array). Absent: a new step',
  })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Checked('stored data', 'Names a step of this series; absent: a new step.')
  @Max(Number.MAX_SAFE_INTEGER)
  id?: number;

  @ApiProperty({
    example: 86400,
    minimum: 0,
    maximum: SERIES_LIMITS.delaySeconds,
    description: 'Seconds after the previous step was sent; for the first step, after the person joined',
  })
  @IsInt()
  @Min(0)
  @Max(SERIES_LIMITS.delaySeconds)
  delaySeconds: number;

  @ApiProperty({ example: 'Welcome aboard', maxLength: SERIES_LIMITS.subject })
  @IsNotEmpty()
  @IsHeaderText(SERIES_LIMITS.subject)
  subject: string;

  @ApiPropertyOptional({ example: 'What to expect from us', maxLength: SERIES_LIMITS.previewText })
  @OptionalNotNull()
  @IsHeaderText(SERIES_LIMITS.previewText)
  previewText?: string;

  @ApiPropertyOptional({
    example: '<h1>Hello</h1><p>Thanks for joining.</p>',
    maxLength: SERIES_LIMITS.html,
    description: "The mail's HTML (trusted), in the `newsletter.campaign` template. Required without `templateId`",
  })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(SERIES_LIMITS.html)
  html?: string;

  @ApiPropertyOptional({
    ...ID,
    example: 1,
    description: 'An email template of the site of type `newsletter.campaign`, given subject, html and preheader',
  })
  @OptionalNotNull()
  @IsInt()
  @Checked('stored data', 'Names an email template of this site of type `newsletter.campaign`.')
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  templateId?: number;
}

export class CreateSeriesDto {
  @ApiProperty({ example: 'Onboarding', maxLength: SERIES_LIMITS.name })
  @IsNotEmpty()
  @IsHeaderText(SERIES_LIMITS.name)
  name: string;

  @ApiProperty({
    ...ID_LIST,
    example: [1],
    minItems: 1,
    maxItems: SERIES_LIMITS.lists,
    description: 'Lists of the site: who becomes active on one of them from now on is enrolled',
  })
  @ArrayMinSize(1)
  @Checked('stored data', 'Each id names a list of this site.')
  @IsIdSet(SERIES_LIMITS.lists)
  listIds: number[];

  @ApiProperty({
    type: [SeriesStepDto],
    minItems: 1,
    maxItems: SERIES_LIMITS.steps,
    description: 'The mails, in order',
  })
  @ArrayMinSize(1)
  @NestedArray(() => SeriesStepDto, SERIES_LIMITS.steps)
  steps: SeriesStepDto[];

  @ApiPropertyOptional({ enum: SERIES_STATUSES, description: 'Absent on create: `active`' })
  @OptionalNotNull()
  @IsIn(SERIES_STATUSES)
  status?: SeriesStatus;
}

/** A partial update: fields left out stay as they are; `steps` replaces the list of steps. */
export class UpdateSeriesDto {
  @ApiPropertyOptional({ example: 'Onboarding', maxLength: SERIES_LIMITS.name })
  @OptionalNotNull()
  @IsNotEmpty()
  @IsHeaderText(SERIES_LIMITS.name)
  name?: string;

  @ApiPropertyOptional({
    ...ID_LIST,
    example: [1],
    minItems: 1,
    maxItems: SERIES_LIMITS.lists,
    description: 'Replaces the trigger lists',
  })
  @OptionalNotNull()
  @Checked('stored data', 'Each id names a list of this site.')
  @ArrayMinSize(1)
  @IsIdSet(SERIES_LIMITS.lists)
  listIds?: number[];

  @ApiPropertyOptional({
    type: [SeriesStepDto],
    minItems: 1,
    maxItems: SERIES_LIMITS.steps,
    description:
      'Replaces the steps: a step given with its `id` is kept (edited, moved), one without is new, one left out ' +
      'is removed. Only steps a person has not received yet change for them',
  })
  @OptionalNotNull()
  @ArrayMinSize(1)
  @NestedArray(() => SeriesStepDto, SERIES_LIMITS.steps)
  steps?: SeriesStepDto[];

  @ApiPropertyOptional({
    enum: SERIES_STATUSES,
    example: 'paused',
    description: 'A move: `active → paused` holds the steps, `paused → active` releases them; anything else is a 409',
  })
  @OptionalNotNull()
  @IsIn(SERIES_STATUSES)
  status?: SeriesStatus;
}

export class SeriesQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ enum: SERIES_STATUSES })
  @IsOptional()
  @IsIn(SERIES_STATUSES)
  status?: SeriesStatus;
}

export class SeriesStepResponseDto {
  @ApiProperty({ ...ID, example: 12 }) id: number;
  @ApiProperty({ example: 1 }) position: number;
  @ApiProperty({ example: 86400 }) delaySeconds: number;
  @ApiProperty({ example: 'Welcome aboard' }) subject: string;
  @ApiProperty({ example: 'What to expect from us' }) previewText: string;
  @ApiProperty({ type: String, nullable: true, example: '<h1>Hello</h1>' }) html: string | null;
  @ApiProperty({ ...ID, nullable: true, example: null }) templateId: number | null;
}

export class SeriesEnrollmentCountsDto {
  @ApiProperty({ example: 40, description: 'Still receiving steps' }) active: number;
  @ApiProperty({ example: 120, description: 'Received every step' }) completed: number;
  @ApiProperty({ example: 3, description: 'Left the trigger lists or became undeliverable' }) stopped: number;
}

export class SeriesResponseDto {
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ example: 'Onboarding' }) name: string;
  @ApiProperty({ enum: SERIES_STATUSES, example: 'active' }) status: SeriesStatus;
  @ApiProperty({ ...ID_LIST, example: [1] }) listIds: number[];
  @ApiProperty({ type: [SeriesStepResponseDto] }) steps: SeriesStepResponseDto[];
  @ApiProperty({ type: SeriesEnrollmentCountsDto, description: 'Enrollments by status' })
  enrollments: SeriesEnrollmentCountsDto;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-24T10:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-24T10:00:00.000Z' }) updatedAt: string;
}

/** A series with what the service reads beside its row. */
export interface SeriesView {
  series: SeriesEntity;
  listIds: number[];
  steps: SeriesStepEntity[];
  enrollments: Record<EnrollmentStatus, number>;
}

export function toSeriesResponse({ series, listIds, steps, enrollments }: SeriesView): SeriesResponseDto {
  return {
    id: series.id,
    name: series.name,
    status: series.status,
    listIds: [...listIds],
    steps: steps.map((s) => ({
      id: s.id,
      position: s.position,
      delaySeconds: s.delaySeconds,
      subject: s.subject,
      previewText: s.previewText,
      html: s.html,
      templateId: s.templateId,
    })),
    enrollments: { active: enrollments.active, completed: enrollments.completed, stopped: enrollments.stopped },
    createdAt: series.createdAt.toISOString(),
    updatedAt: series.updatedAt.toISOString(),
  };
}
