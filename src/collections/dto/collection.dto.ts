import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { SiteIdParamDto } from '../../common/http/params';
import { IsIdParam, IsTimestamp, MAX_ID, OptionalNotNull } from '../../common/input/dto-rules';
import { SLUG_MAX_LENGTH, SLUG_MESSAGE, SLUG_PATTERN } from '../../common/slugs/slugs';
import { CollectionEntity } from '../entities/collection.entity';
import { Checked } from '../../common/input/checked';

class CollectionFieldsDto {
  @ApiPropertyOptional({
    example: 'summer-picks',
    description: 'Unique in the site; generated from the name when absent',
  })
  @OptionalNotNull()
  @IsString()
  @MaxLength(SLUG_MAX_LENGTH)
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  slug?: string;

  @ApiPropertyOptional({ example: 'What we read this summer' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(5000)
  description?: string;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-06-01T00:00:00.000Z',
    description: 'Start of the window in which it is current; null clears it',
  })
  @IsOptional()
  @IsTimestamp()
  startsAt?: Date | null;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-09-01T00:00:00.000Z',
    description: 'End of the window (exclusive); needs startsAt; null clears it',
  })
  @IsOptional()
  @Checked('other fields', 'After `startsAt`, which it needs.')
  @IsTimestamp()
  endsAt?: Date | null;

  @ApiPropertyOptional({
    example: true,
    description: 'The pinned collection is current whatever the windows say; pinning one unpins the other',
  })
  @OptionalNotNull()
  @IsBoolean()
  pinned?: boolean;
}

export class CreateCollectionDto extends CollectionFieldsDto {
  @ApiProperty({ example: 'Summer picks' }) @IsString() @IsNotEmpty() @MaxLength(200) name: string;
}

export class UpdateCollectionDto extends CollectionFieldsDto {
  @ApiPropertyOptional({ example: 'Summer picks' })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;
}

export class CollectionResponseDto {
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ example: 'Summer picks' }) name: string;
  @ApiProperty({ example: 'summer-picks' }) slug: string;
  @ApiProperty({ example: '' }) description: string;
  @ApiProperty({ ...DATE_TIME, nullable: true }) startsAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) endsAt: string | null;
  @ApiProperty({ example: false }) pinned: boolean;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
}

export function toCollectionResponse(c: CollectionEntity): CollectionResponseDto {
  return {
    id: c.id,
    name: c.name,
    slug: c.slug,
    description: c.description,
    startsAt: c.startsAt?.toISOString() ?? null,
    endsAt: c.endsAt?.toISOString() ?? null,
    pinned: c.pinned,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

export class CollectionItemParamDto extends SiteIdParamDto {
  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 1, description: 'The content id of the item' })
  @IsIdParam()
  itemId: number;
}
