import { ID, ID_LIST } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsObject, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { SITE_NAME_PATTERN } from '../../common/auth/principal';
import { FieldError, ValidationProblem } from '../../common/errors/problems';
import {
  IsIdOrSlug,
  IsIdParam,
  IsIdSet,
  IsTimestamp,
  IsWordSet,
  MAX_ID,
  NestedArray,
  OptionalNotNull,
  toInteger,
} from '../../common/input/dto-rules';
import { slugPart } from '../../common/slugs/slugs';
import { CONTENT_STATUSES, type ContentStatus } from '../../content/content.service';
import { AuthorDto, CONTENT_TYPE_PATTERN, CreateContentDto, UpdateContentDto } from '../../content/dto/content.dto';
import type { PageView } from '../v1-pages.service';
import { toV1MediaItem, V1MediaItemDto } from './v1-media.dto';
import { Checked } from '../../common/input/checked';

const TYPE_MESSAGE = 'must be 1-40 lower-case letters, digits, - or _, starting with a letter';

/** The body fields both forms share, in both namings. */
class V1PageFieldsDto {
  @Checked('other fields', 'Required on create, under this name or `post_title`.')
  @ApiPropertyOptional({ example: 'About us' })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  title?: string;
  @Checked('other fields', 'Agrees with `title` when both are given.')
  @ApiPropertyOptional({ example: 'About us', description: 'Older name of title' })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  post_title?: string;
  @Checked('other fields', 'Required on create, under this name or `post_content`.')
  @ApiPropertyOptional({ example: '<p>Hello</p>' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(1_000_000)
  content?: string;
  @Checked('other fields', 'Agrees with `content` when both are given.')
  @ApiPropertyOptional({ example: '<p>Hello</p>', description: 'Older name of content' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(1_000_000)
  post_content?: string;
  @ApiPropertyOptional({ example: 'A short summary' }) @OptionalNotNull() @IsString() @MaxLength(5000) excerpt?: string;
  @Checked('other fields', 'Agrees with `excerpt` when both are given.')
  @ApiPropertyOptional({ example: 'A short summary', description: 'Older name of excerpt' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(5000)
  post_excerpt?: string;
  @Checked('other fields', 'Required on create, under this name or `post_type`.')
  @ApiPropertyOptional({ example: 'post' })
  @OptionalNotNull()
  @IsString()
  @Matches(CONTENT_TYPE_PATTERN, { message: TYPE_MESSAGE })
  page_type?: string;
  @Checked('other fields', 'Agrees with `page_type` when both are given.')
  @ApiPropertyOptional({ example: 'post', description: 'Older name of page_type' })
  @OptionalNotNull()
  @IsString()
  @Matches(CONTENT_TYPE_PATTERN, { message: TYPE_MESSAGE })
  post_type?: string;
  @Checked('other fields', '`scheduled` needs a future `date`.')
  @ApiPropertyOptional({ enum: CONTENT_STATUSES, description: '`scheduled` needs a future date' })
  @OptionalNotNull()
  @IsIn(CONTENT_STATUSES)
  page_status?: ContentStatus;
  @Checked('other fields', 'Agrees with `page_status` when both are given.')
  @ApiPropertyOptional({ enum: CONTENT_STATUSES, description: 'Older name of page_status' })
  @OptionalNotNull()
  @IsIn(CONTENT_STATUSES)
  post_status?: ContentStatus;
  @Checked('time', 'In the past, or in the future with `page_status` `scheduled`.')
  @ApiPropertyOptional({
    example: '2024-01-01T09:00:00.000Z',
    description: 'Publication date; future only with page_status scheduled',
  })
  @OptionalNotNull()
  @IsTimestamp()
  date?: Date;
  @Checked('other fields', 'Agrees with `date` when both are given.')
  @Checked('time', 'In the past, or in the future with `page_status` `scheduled`.')
  @ApiPropertyOptional({ example: '2024-01-01T09:00:00.000Z', description: 'Older name of date' })
  @OptionalNotNull()
  @IsTimestamp()
  post_date?: Date;

  @ApiPropertyOptional({ example: 'news', description: 'Put in front of the slug with a dash' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(60)
  slug_prefix?: string;
  @ApiPropertyOptional({ type: [String] })
  @OptionalNotNull()
  @IsWordSet()
  tags?: string[];
  @ApiPropertyOptional({ type: [String] })
  @OptionalNotNull()
  @IsWordSet()
  categories?: string[];
  @ApiPropertyOptional({ type: [AuthorDto] })
  @OptionalNotNull()
  @NestedArray(() => AuthorDto, 20)
  author?: AuthorDto[];
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Custom fields' })
  @OptionalNotNull()
  @IsObject()
  custom?: Record<string, unknown>;
  @ApiPropertyOptional() @OptionalNotNull() @IsString() @MaxLength(200) template?: string;
  @ApiPropertyOptional() @OptionalNotNull() @IsString() @MaxLength(2048) thumbnail?: string;
  @ApiPropertyOptional() @OptionalNotNull() @IsString() @MaxLength(5000) description?: string;
  @Checked('stored data', 'Each id names a media item of this site.')
  @ApiPropertyOptional({ ...ID_LIST, description: 'Media ids of the site' })
  @OptionalNotNull()
  @IsIdSet()
  attachment_ids?: number[];
  @ApiPropertyOptional({ description: 'On edit: true replaces the attachments, false (or absent) adds to them' })
  @OptionalNotNull()
  @IsBoolean()
  replace_attachments?: boolean;
}

/** Create body: title, content and page_type are required, in either naming. */
export class V1CreatePageDto extends V1PageFieldsDto {
  @ApiPropertyOptional({
    example: 'about-us',
    description: 'Normalised to lower-case words; generated from the title when absent',
  })
  @OptionalNotNull()
  @IsString()
  @MaxLength(200)
  slug?: string;
}

/** Edit body: every field optional; the slug is not editable in v1. */
export class V1UpdatePageDto extends V1PageFieldsDto {}

export class V1PageResponseDto {
  @ApiProperty({ ...ID, example: 1 }) page_id: number;
  @ApiProperty({ example: 'About us' }) title: string;
  @ApiProperty({ example: '<p>Hello</p>' }) content: string;
  @ApiProperty({ example: '' }) post_excerpt: string;
  @ApiProperty({ example: 'about-us' }) slug: string;
  @ApiProperty({ example: 'post' }) page_type: string;
  @ApiProperty({ enum: CONTENT_STATUSES }) page_status: ContentStatus;
  @ApiProperty({
    ...DATE_TIME,
    example: '2026-01-01T00:00:00.000Z',
    description: 'Publication date (scheduled date; creation date for drafts)',
  })
  date: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) page_modified: string;
  @ApiProperty({ type: [String] }) tags: string[];
  @ApiProperty({ type: [String] }) categories: string[];
  @ApiProperty({ type: [AuthorDto] }) author: AuthorDto[];
  @ApiProperty({ example: '' }) template: string;
  @ApiProperty({ example: '' }) thumbnail: string;
  @ApiProperty({ example: '' }) description: string;
  @ApiProperty({ type: [V1MediaItemDto] }) media: V1MediaItemDto[];
}

export class V1PageListDto {
  @ApiProperty({ type: [V1PageResponseDto] }) data: V1PageResponseDto[];
  @ApiProperty({ example: 57 }) total: number;
  @ApiProperty({ example: 20 }) limit: number;
  @ApiProperty({ example: 0 }) offset: number;
}

export class V1PageDeletedDto {
  @ApiProperty({ example: true }) deleted: true;
  @ApiProperty({ ...ID, example: 1 }) page_id: number;
}

/**
 * The GET's one segment, named like the writes' (`{page_id}`) so the path has one form in
 * OpenAPI (docs/openapi.md): an id, the interface's `{post_slug}`, or `all`.
 */
export class V1PageParamDto {
  @ApiProperty({ example: 'demo' })
  @IsString()
  @Matches(SITE_NAME_PATTERN, { message: 'is not a valid site name' })
  site_name: string;
  @ApiProperty({
    example: 'welcome',
    description: 'A page id (digits, no leading zeros), a post slug (`{post_slug}`), or `all`',
  })
  @IsString()
  @MaxLength(200)
  @IsIdOrSlug()
  page_id: string;
}

export class V1PageIdParamDto {
  @ApiProperty({ example: 'demo' })
  @IsString()
  @Matches(SITE_NAME_PATTERN, { message: 'is not a valid site name' })
  site_name: string;
  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 1 }) @IsIdParam() page_id: number;
}

export class V1PageListParamsDto {
  @ApiProperty({ example: 'demo' })
  @IsString()
  @Matches(SITE_NAME_PATTERN, { message: 'is not a valid site name' })
  site_name: string;
  @ApiProperty({ minimum: 1, maximum: 100, example: 20 })
  @Transform(toInteger)
  @IsInt({ message: 'must be an integer from 1 to 100' })
  @Min(1)
  @Max(100)
  limit: number;
  @ApiProperty({ minimum: 0, example: 0 })
  @Transform(toInteger)
  @IsInt({ message: 'must be a non-negative integer' })
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  offset: number;
}

export function toV1Page({ item, media }: PageView): V1PageResponseDto {
  return {
    page_id: item.id,
    title: item.title,
    content: item.content,
    post_excerpt: item.excerpt,
    slug: item.slug,
    page_type: item.type,
    page_status: item.status,
    date: (item.publishedAt ?? item.publishAt ?? item.createdAt).toISOString(),
    page_modified: item.updatedAt.toISOString(),
    tags: item.tags,
    categories: item.categories,
    author: item.authors.map((a) => ({ id: a.id, name: a.name })),
    template: item.template,
    thumbnail: item.thumbnail,
    description: item.description,
    media: media.map(toV1MediaItem),
  };
}

/** The same field under its current and older name: either, or both when they agree. */
function pick<T>(errors: FieldError[], body: object, current: string, older: string): T | undefined {
  const b = body as Record<string, T | undefined>;
  const [a, o] = [b[current], b[older]];
  if (a !== undefined && o !== undefined && JSON.stringify(a) !== JSON.stringify(o)) {
    errors.push({ path: older, message: `conflicts with ${current}` });
  }
  return a ?? o;
}

/**
 * A v1 body as the content service's input: older names are aliases, `date` is the
 * publication date (the schedule with page_status `scheduled`), `custom` the custom fields,
 * `author` the authors. Slugs are normalised rather than refused.
 */
function toContentInput(
  body: V1PageFieldsDto & { slug?: string },
  required: boolean,
  now: Date,
): CreateContentDto & UpdateContentDto {
  const errors: FieldError[] = [];
  const title = pick<string>(errors, body, 'title', 'post_title');
  const content = pick<string>(errors, body, 'content', 'post_content');
  const type = pick<string>(errors, body, 'page_type', 'post_type');
  const excerpt = pick<string>(errors, body, 'excerpt', 'post_excerpt');
  const status = pick<ContentStatus>(errors, body, 'page_status', 'post_status');
  const date = pick<Date>(errors, body, 'date', 'post_date');
  if (required) {
    if (title === undefined) errors.push({ path: 'title', message: 'is required (or post_title)' });
    if (content === undefined) errors.push({ path: 'content', message: 'is required (or post_content)' });
    if (type === undefined) errors.push({ path: 'page_type', message: 'is required (or post_type)' });
  }
  const schedules = status === 'scheduled';
  if (schedules && (date === undefined || date.getTime() <= now.getTime())) {
    errors.push({ path: 'date', message: 'must be a future date to schedule' });
  } else if (!schedules && date !== undefined && date.getTime() > now.getTime()) {
    errors.push({ path: 'date', message: 'must not be in the future (use page_status scheduled)' });
  }
  const prefix = body.slug_prefix === undefined ? undefined : slugPart(body.slug_prefix, 60);
  if (body.slug_prefix !== undefined && !prefix)
    errors.push({ path: 'slug_prefix', message: 'must contain letters or digits' });
  if (errors.length) throw new ValidationProblem(errors);

  const slug = body.slug === undefined ? undefined : slugPart(body.slug, 200) || undefined;
  return {
    title: title as string,
    content,
    type,
    excerpt,
    status,
    ...(date ? (schedules ? { publishAt: date } : { publishedAt: date }) : {}),
    slug,
    // v1 edits have no slug: a prefix there means "make the slug again from the title, with it".
    slugPrefix: prefix,
    tags: body.tags,
    categories: body.categories,
    authors: body.author,
    customFields: body.custom,
    template: body.template,
    thumbnail: body.thumbnail,
    description: body.description,
    attachmentIds: body.attachment_ids,
  };
}

export function toCreateContentInput(body: V1CreatePageDto, now = new Date()): CreateContentDto {
  return toContentInput(body, true, now);
}

export function toUpdateContentInput(body: V1UpdatePageDto, now = new Date()): UpdateContentDto {
  return toContentInput(body, false, now);
}
