import { ID, ID_LIST } from '../../common/http/api-id';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxDate,
  MaxLength,
  Min,
} from 'class-validator';
import { IdOrSlugParam, SiteIdParamDto } from '../../common/http/params';
import {
  IsIdParam,
  IsIdSet,
  IsTimestamp,
  IsWordSet,
  MAX_ID,
  NestedArray,
  OptionalNotNull,
} from '../../common/input/dto-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import {
  SLUG_MAX_LENGTH,
  SLUG_MESSAGE,
  SLUG_PATTERN,
  SLUG_PREFIX_MESSAGE,
  SLUG_PREFIX_PATTERN,
} from '../../common/slugs/slugs';
import { CONTENT_STATUSES, ContentStatus } from '../content-status';
import type { ContentFormat } from '../entities/content-item.entity';
import { Checked } from '../../common/input/checked';

export const CONTENT_TYPE_PATTERN = /^[a-z][a-z0-9_-]{0,39}$/;
const now = () => new Date();

export class AuthorDto {
  @ApiProperty({ ...ID, example: 7 }) @IsInt() @Min(1) @Max(Number.MAX_SAFE_INTEGER) id: number;
  @ApiProperty({ example: 'Ada Lovelace' }) @IsString() @IsNotEmpty() @MaxLength(200) name: string;
}

/** Fields of create and update; create requires `title`. */
class ContentFieldsDto {
  @ApiPropertyOptional({
    example: 'post',
    description: '`page`, `post` or a custom type of the site. Absent on create: `post`',
  })
  @OptionalNotNull()
  @IsString()
  @Matches(CONTENT_TYPE_PATTERN, { message: 'must be 1-40 lower-case letters, digits, - or _, starting with a letter' })
  type?: string;

  @ApiPropertyOptional({
    example: 'hello-world',
    description: 'Unique in the site; generated from the title when absent',
  })
  @OptionalNotNull()
  @IsString()
  @MaxLength(SLUG_MAX_LENGTH)
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  slug?: string;

  @ApiPropertyOptional({ example: 'news', description: 'Put in front of the slug with a dash: `news-hello-world`' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(60)
  @Matches(SLUG_PREFIX_PATTERN, { message: SLUG_PREFIX_MESSAGE })
  slugPrefix?: string;

  @ApiPropertyOptional({ example: '<p>Hello</p>' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(1_000_000)
  content?: string;
  @ApiPropertyOptional({ enum: ['html', 'markdown'], description: 'Absent on create: `html`' })
  @OptionalNotNull()
  @IsIn(['html', 'markdown'])
  format?: ContentFormat;
  @ApiPropertyOptional({ example: 'A short summary' }) @OptionalNotNull() @IsString() @MaxLength(5000) excerpt?: string;

  @ApiPropertyOptional({
    enum: CONTENT_STATUSES,
    // With the publishAt example: an example that runs as it is (a status other than scheduled refuses publishAt).
    example: 'scheduled',
    description:
      'draft → published → draft, draft → scheduled → published, any → archived; `scheduled` needs publishAt',
  })
  @OptionalNotNull()
  @IsIn(CONTENT_STATUSES)
  status?: ContentStatus;

  @ApiPropertyOptional({ example: '2030-01-01T09:00:00.000Z', description: 'When a scheduled item goes live (future)' })
  @Checked('time', 'In the future, and only with `status` `scheduled`.')
  @OptionalNotNull()
  @IsTimestamp()
  publishAt?: Date;

  @ApiPropertyOptional({
    example: '2024-01-01T09:00:00.000Z',
    description: 'Publication date (back-dating, imports); set on first publish when absent',
  })
  @OptionalNotNull()
  @IsTimestamp()
  @MaxDate(now, { message: 'must not be in the future (schedule with publishAt)' })
  publishedAt?: Date;

  @ApiPropertyOptional({ type: [String], example: ['news'] })
  @OptionalNotNull()
  @IsWordSet()
  tags?: string[];

  @ApiPropertyOptional({ type: [String], example: ['guides'] })
  @OptionalNotNull()
  @IsWordSet()
  categories?: string[];

  @ApiPropertyOptional({ type: [AuthorDto] })
  @OptionalNotNull()
  @NestedArray(() => AuthorDto, 20)
  authors?: AuthorDto[];

  @ApiPropertyOptional({ example: 'default' }) @OptionalNotNull() @IsString() @MaxLength(200) template?: string;
  @ApiPropertyOptional({ example: 'https://cdn.example.com/t.jpg' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(2048)
  thumbnail?: string;
  @ApiPropertyOptional({ example: 'For search engines' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(5000)
  description?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { featured: true } })
  @OptionalNotNull()
  @IsObject()
  customFields?: Record<string, unknown>;

  @ApiPropertyOptional({ ...ID_LIST, example: [1], description: 'Media ids of this site' })
  @OptionalNotNull()
  @Checked('stored data', 'Each id names a media item of this site.')
  @IsIdSet()
  attachmentIds?: number[];
}

export class CreateContentDto extends ContentFieldsDto {
  @ApiProperty({ example: 'Hello world' }) @IsString() @IsNotEmpty() @MaxLength(500) title: string;
}

export class UpdateContentDto extends ContentFieldsDto {
  // Its own example: the create's slug is taken once the create example ran (the demo's page 1 becomes news-welcome).
  @ApiPropertyOptional({ example: 'welcome', description: 'Unique in the site' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(SLUG_MAX_LENGTH)
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  declare slug?: string;

  @ApiPropertyOptional({ example: 'Hello again' })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  title?: string;
}

export class PublishContentDto {
  @Checked('time', 'Absent or past: now; in the future: scheduled.')
  @ApiPropertyOptional({ example: '2030-01-01T09:00:00.000Z', description: 'Absent: publish now. Future: schedule.' })
  @OptionalNotNull()
  @IsTimestamp()
  publishAt?: Date;
}

export class ContentQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ example: 'post' })
  @IsOptional()
  @IsString()
  @Matches(CONTENT_TYPE_PATTERN, { message: 'is not a content type' })
  type?: string;
  @ApiPropertyOptional({ enum: CONTENT_STATUSES, description: 'Anonymous callers only ever see published items' })
  @IsOptional()
  @IsIn(CONTENT_STATUSES)
  status?: ContentStatus;
  @ApiPropertyOptional({ example: 'news' }) @IsOptional() @IsString() @MaxLength(100) tag?: string;
  @ApiPropertyOptional({ example: 'guides' }) @IsOptional() @IsString() @MaxLength(100) category?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_ID, example: 7, description: 'Author id' })
  @IsOptional()
  @IsIdParam()
  author?: number;
  @ApiPropertyOptional({
    example: 'hello "exact phrase" -excluded',
    description: 'Full-text search of title, excerpt and body (web search syntax)',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  q?: string;
  @ApiPropertyOptional({
    description: 'From this date-time (RFC 3339), inclusive (publishedAt for a published-only list, else createdAt)',
  })
  @IsOptional()
  @IsTimestamp()
  from?: Date;
  @ApiPropertyOptional({ description: 'Before this date-time (RFC 3339), exclusive' })
  @IsOptional()
  @IsTimestamp()
  to?: Date;
}

/** `GET …/content/{id}`: an id or a slug. */
export class IdOrSlugParamDto extends IdOrSlugParam('welcome') {}

export class RevisionParamDto extends SiteIdParamDto {
  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 1 }) @IsIdParam() revisionId: number;
}
