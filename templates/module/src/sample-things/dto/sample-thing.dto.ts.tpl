import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { DATE_TIME } from '../../common/http/api-date';
import { ID } from '../../common/http/api-id';
import { IdOrSlugParam } from '../../common/http/params';
import { IsTimestamp, OptionalNotNull } from '../../common/input/dto-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import { SLUG_MAX_LENGTH, SLUG_MESSAGE, SLUG_PATTERN } from '../../common/slugs/slugs';
import { SAMPLE_THING_STATUSES, SampleThingEntity, SampleThingStatus } from '../entities/sample-thing.entity';

export class CreateSampleThingDto {
  @ApiProperty({ example: 'Spring opening', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  title: string;

  @ApiPropertyOptional({ example: 'spring-opening', description: 'Unique in the site; made from the title when absent' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(SLUG_MAX_LENGTH)
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  slug?: string;

  @ApiPropertyOptional({ example: 'Doors open at ten.', maxLength: 20_000 })
  @OptionalNotNull()
  @IsString()
  @MaxLength(20_000)
  body?: string;

  @ApiPropertyOptional({
    enum: SAMPLE_THING_STATUSES,
    example: 'published',
    // @if !lifecycle
    description: 'Only published ones are shown without a key. Absent on create: `draft`',
    // @end
    // @if lifecycle
    description:
      'Only published ones are shown without a key. Absent on create: `draft`. A change follows the lifecycle: ' +
      'an archived one goes back to `draft` before it is published (409 `transition_forbidden`)',
    // @end
  })
  @OptionalNotNull()
  @IsIn(SAMPLE_THING_STATUSES)
  status?: SampleThingStatus;
}

/** Every field of the create, each optional; null stays refused (docs/modules.md). */
export class UpdateSampleThingDto extends PartialType(CreateSampleThingDto, { skipNullProperties: false }) {}

/** `?limit&cursor` and the filters; newest first. */
export class SampleThingQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({
    enum: SAMPLE_THING_STATUSES,
    description: 'Only this status; without a key only `published` ones are ever listed',
  })
  @IsOptional()
  @IsIn(SAMPLE_THING_STATUSES)
  status?: SampleThingStatus;

  @ApiPropertyOptional({ ...DATE_TIME, description: 'Created at or after this date-time (RFC 3339)' })
  @IsOptional()
  @IsTimestamp()
  createdFrom?: Date;

  @ApiPropertyOptional({ ...DATE_TIME, description: 'Created before this date-time (RFC 3339), exclusive' })
  @IsOptional()
  @IsTimestamp()
  createdTo?: Date;
}

/** `:id` of a get: the id or the slug. */
export class SampleThingIdOrSlugParamDto extends IdOrSlugParam('spring-opening') {}

export class SampleThingResponseDto {
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ example: 'Spring opening' }) title: string;
  @ApiProperty({ example: 'spring-opening' }) slug: string;
  @ApiProperty({ example: 'Doors open at ten.' }) body: string;
  @ApiProperty({ enum: SAMPLE_THING_STATUSES, example: 'published' }) status: SampleThingStatus;
  @ApiProperty({ ...DATE_TIME, nullable: true, description: 'When it was first published' })
  publishedAt: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
}

export function toSampleThingResponse(x: SampleThingEntity): SampleThingResponseDto {
  return {
    id: x.id,
    title: x.title,
    slug: x.slug,
    body: x.body,
    status: x.status,
    publishedAt: x.publishedAt?.toISOString() ?? null,
    createdAt: x.createdAt.toISOString(),
    updatedAt: x.updatedAt.toISOString(),
  };
}
