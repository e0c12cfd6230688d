import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { OptionalNotNull } from '../../common/input/dto-rules';
import { MediaCategoryEntity, MediaTagEntity } from '../entities/media-term.entity';

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export class CreateMediaTermDto {
  @ApiProperty({ example: 'Travel' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ example: 'travel', description: 'Unique in the site. Absent on create: made from the name' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(200)
  @Matches(SLUG_PATTERN, { message: 'must be lower-case letters and digits separated by dashes' })
  slug?: string;

  @ApiPropertyOptional({ example: 'Photos from trips' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(2000)
  description?: string;
}

/** A partial update: fields left out stay as they are (null is refused, as on create). */
export class UpdateMediaTermDto extends PartialType(CreateMediaTermDto, { skipNullProperties: false }) {}

export class MediaTermResponseDto {
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ example: 'Travel' }) name: string;
  @ApiProperty({ example: 'travel' }) slug: string;
  @ApiProperty({ example: 'Photos from trips' }) description: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
}

export class MediaCategoryResponseDto extends MediaTermResponseDto {}
export class MediaTagResponseDto extends MediaTermResponseDto {}

export function toMediaTermResponse(t: MediaCategoryEntity | MediaTagEntity): MediaTermResponseDto {
  return {
    id: t.id,
    name: t.name,
    slug: t.slug,
    description: t.description,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}
