import { ID, ID_LIST } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { IsIdSet, OptionalNotNull } from '../../common/input/dto-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import {
  SLUG_MAX_LENGTH,
  SLUG_MESSAGE,
  SLUG_PATTERN,
  SLUG_PREFIX_MESSAGE,
  SLUG_PREFIX_PATTERN,
} from '../../common/slugs/slugs';
import { ProductCategoryEntity } from '../entities/product-category.entity';
import { Checked } from '../../common/input/checked';

export const MAX_POSITION = 1_000_000_000;

/** What a create and a PATCH both take. */
class CategoryFieldsDto {
  @ApiPropertyOptional({ example: 'mugs', description: 'Unique in the site; made from the name when absent' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(SLUG_MAX_LENGTH)
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  slug?: string;

  @ApiPropertyOptional({ example: 'shop', description: 'Put in front of the slug with a dash: `shop-mugs`' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(60)
  @Matches(SLUG_PREFIX_PATTERN, { message: SLUG_PREFIX_MESSAGE })
  slugPrefix?: string;

  @ApiPropertyOptional({ example: 'Stoneware, made to order', maxLength: 10000 })
  @OptionalNotNull()
  @IsString()
  @MaxLength(10_000)
  description?: string;

  @ApiPropertyOptional({
    type: 'integer',
    example: 1,
    description: 'Lists go by position, then id. Absent on create: 0',
  })
  @OptionalNotNull()
  @IsInt()
  @Min(-MAX_POSITION)
  @Max(MAX_POSITION)
  position?: number;

  @ApiPropertyOptional({ ...ID_LIST, example: [1], description: 'Media ids of the site (its pictures)' })
  @OptionalNotNull()
  @Checked('stored data', 'Each id names a media item of this site.')
  @IsIdSet()
  attachmentIds?: number[];
}

export class CreateCategoryDto extends CategoryFieldsDto {
  @ApiProperty({ example: 'Mugs', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;
}

export class UpdateCategoryDto extends CategoryFieldsDto {
  // Its own example: the create's slug is taken once the create example ran; the demo's category 1 keeps its own.
  @ApiPropertyOptional({ example: 'memberships', description: 'Unique in the site' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(SLUG_MAX_LENGTH)
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  declare slug?: string;

  @ApiPropertyOptional({ example: 'Mugs', maxLength: 200 })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;
}

export class CategoryQueryDto extends CursorQueryDto {}

export class CategoryResponseDto {
  @ApiProperty({ ...ID, example: 3 }) id: number;
  @ApiProperty({ example: 'Mugs' }) name: string;
  @ApiProperty({ example: 'mugs' }) slug: string;
  @ApiProperty({ example: '' }) slugPrefix: string;
  @ApiProperty({ example: 'Stoneware, made to order' }) description: string;
  @ApiProperty({ example: 1 }) position: number;
  @ApiProperty({ ...ID_LIST, example: [12] }) attachmentIds: number[];
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
}

export function toCategoryResponse(c: ProductCategoryEntity): CategoryResponseDto {
  return {
    id: c.id,
    name: c.name,
    slug: c.slug,
    slugPrefix: c.slugPrefix,
    description: c.description,
    position: c.position,
    attachmentIds: c.attachmentIds,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}
