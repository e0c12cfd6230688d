import { ID, ID_LIST } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, OmitType } from '@nestjs/swagger';
import { CONTENT_STATUSES, ContentStatus } from '../content-status';
import type { ContentFormat, ContentItemEntity } from '../entities/content-item.entity';
import { AuthorDto } from './content.dto';

export class ContentResponseDto {
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ example: 'post' }) type: string;
  @ApiProperty({ example: 'Hello world' }) title: string;
  @ApiProperty({ example: 'hello-world' }) slug: string;
  @ApiProperty({ example: '<p>Hello</p>' }) content: string;
  @ApiProperty({ enum: ['html', 'markdown'] }) format: ContentFormat;
  @ApiProperty({ example: 'A short summary' }) excerpt: string;
  @ApiProperty({ enum: CONTENT_STATUSES }) status: ContentStatus;
  @ApiProperty({ type: String, nullable: true, description: 'When a scheduled item goes live' }) publishAt:
    string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) publishedAt: string | null;
  @ApiProperty({ type: [String] }) tags: string[];
  @ApiProperty({ type: [String] }) categories: string[];
  @ApiProperty({ type: [AuthorDto] }) authors: AuthorDto[];
  @ApiProperty({ example: '' }) template: string;
  @ApiProperty({ example: '' }) thumbnail: string;
  @ApiProperty({ example: '' }) description: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) customFields: Record<string, unknown>;
  @ApiProperty({ ...ID_LIST }) attachmentIds: number[];
  @ApiProperty({ example: 1, description: 'Bumped by every change; the ETag carries it' }) version: number;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
}

/** List entries: the item without its body. */
export class ContentSummaryDto extends OmitType(ContentResponseDto, ['content'] as const) {}

export function toContentSummary(c: ContentItemEntity): ContentSummaryDto {
  return {
    id: c.id,
    type: c.type,
    title: c.title,
    slug: c.slug,
    format: c.format,
    excerpt: c.excerpt,
    status: c.status,
    publishAt: c.publishAt?.toISOString() ?? null,
    publishedAt: c.publishedAt?.toISOString() ?? null,
    tags: c.tags,
    categories: c.categories,
    authors: c.authors.map((a) => ({ id: a.id, name: a.name })),
    template: c.template,
    thumbnail: c.thumbnail,
    description: c.description,
    customFields: c.customFields,
    attachmentIds: c.attachmentIds,
    version: c.version,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

export function toContentResponse(c: ContentItemEntity): ContentResponseDto {
  const { id, type, title, slug, ...rest } = toContentSummary(c);
  return { id, type, title, slug, content: c.content, ...rest };
}
