import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { SITE_NAME_PATTERN } from '../auth/principal';

const MAX_ID = Number.MAX_SAFE_INTEGER;

/** `:id` path parameter: a positive integer (anything else is a 400, not a 500). */
export class IdParamDto {
  @ApiProperty({ example: 1 })
  @Type(() => Number) @IsInt({ message: 'must be a positive integer' }) @Min(1) @Max(MAX_ID)
  id: number;
}

export class SiteNameParamDto {
  @ApiProperty({ example: 'demo' })
  @IsString() @Matches(SITE_NAME_PATTERN, { message: 'is not a valid site name' })
  siteName: string;
}

/** `:siteName/.../:id` routes. */
export class SiteIdParamDto extends IdParamDto {
  @ApiProperty({ example: 'demo' })
  @IsString() @Matches(SITE_NAME_PATTERN, { message: 'is not a valid site name' })
  siteName: string;
}
