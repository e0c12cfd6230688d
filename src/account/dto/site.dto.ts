import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import { SITE_NAME_PATTERN } from '../../common/auth/principal';
import { OptionalNotNull } from '../../common/input/dto-rules';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';

export class CreateSiteDto {
  @ApiProperty({
    example: 'my-blog',
    pattern: SITE_NAME_PATTERN.source,
    description: 'Unique across the installation; used in paths',
  })
  @IsString()
  @Matches(SITE_NAME_PATTERN, {
    message: 'must be lower-case letters, digits and dashes, starting with a letter or digit (at most 63)',
  })
  name: string;

  @ApiPropertyOptional({ example: 'My blog' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(200)
  title?: string;
}

export class SiteResponseDto {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 'demo' }) name: string;
  @ApiProperty({ example: 'Demo site' }) title: string;
  @ApiProperty({ example: 1, description: 'The account (v1 organization_id) that owns the site' }) accountId: number;
  @ApiProperty({ example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
}

export function toSiteResponse(site: SiteEntity): SiteResponseDto {
  return {
    id: site.id,
    name: site.name,
    title: site.title,
    accountId: site.accountId,
    createdAt: site.createdAt.toISOString(),
    updatedAt: site.updatedAt.toISOString(),
  };
}
