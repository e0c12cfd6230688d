import { ApiProperty, IntersectionType } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import { SITE_NAME_PATTERN } from '../auth/principal';
import { IsIdParam, MAX_ID } from '../input/dto-rules';

/** `:id` path parameter: canonical digits, 1..2^53-1 (`0x1`, `1e0`, `+1`, `01` are a 400). */
export class IdParamDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_ID, example: 1 })
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
