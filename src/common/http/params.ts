import { ID } from './api-id';
import { ApiProperty, IntersectionType } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import { SITE_NAME_PATTERN } from '../auth/principal';
import { IsIdOrSlug, IsIdParam, MAX_ID } from '../input/dto-rules';
import { SLUG_MAX_LENGTH } from '../slugs/slugs';

/** `:id` path parameter: canonical digits, 1..2^53-1 (`0x1`, `1e0`, `+1`, `01` are a 400). */
export class IdParamDto {
  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 1 })
  @IsIdParam()
  id: number;
}

export class SiteNameParamDto {
  @ApiProperty({ example: 'demo' })
  @IsString()
  @Matches(SITE_NAME_PATTERN, { message: 'is not a valid site name' })
  siteName: string;
}

/** `:siteName/.../:id` routes. */
export class SiteIdParamDto extends IntersectionType(SiteNameParamDto, IdParamDto) {}

const ID_OR_SLUG = 'The id, or the slug: all digits (no leading zeros) is an id, anything else a slug';

/**
 * `:siteName/.../:id` of a get by id or slug, the interface's `{idOrSlug}`: all digits (no leading
 * zeros) is an id, anything else a slug. One parameter name per path shape (docs/openapi.md): the
 * writes' `{id}`. A class per resource, for the example (a slug of its own) the document shows.
 */
export function IdOrSlugParam(example: string, description = ID_OR_SLUG) {
  class IdOrSlugParamDto extends SiteNameParamDto {
    @ApiProperty({ example, description })
    @IsString()
    @MaxLength(SLUG_MAX_LENGTH)
    @IsIdOrSlug()
    id: string;
  }
  return IdOrSlugParamDto;
}
