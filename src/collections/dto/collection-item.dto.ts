import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { CONTENT_STATUSES, type ContentStatus } from '../../content/content.service';
import { OptionalNotNull } from '../../common/input/dto-rules';
import type { CollectionItemRow } from '../collection-items.service';

export class AddCollectionItemDto {
  @ApiProperty({ ...ID, example: 1 }) @IsInt() @Min(1) @Max(Number.MAX_SAFE_INTEGER) contentId: number;

  @ApiPropertyOptional({
    example: 0,
    description: 'Insert here (0 is first); items at or after it move down. Default: last',
  })
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  position?: number;
}

/** What a collection shows of each item. */
export class CollectionContentSummaryDto {
  @ApiProperty({ ...ID, example: 5 }) id: number;
  @ApiProperty({ example: 'post' }) type: string;
  @ApiProperty({ example: 'Hello world' }) title: string;
  @ApiProperty({ example: 'hello-world' }) slug: string;
  @ApiProperty({ example: 'A short summary' }) excerpt: string;
  @ApiProperty({ enum: CONTENT_STATUSES }) status: ContentStatus;
  @ApiProperty({ ...DATE_TIME, nullable: true }) publishedAt: string | null;
  @ApiProperty({ example: '' }) thumbnail: string;
}

export class CollectionItemResponseDto {
  @ApiProperty({ ...ID, example: 5 }) contentId: number;
  @ApiProperty({ example: 0, description: 'Sort key: items are listed by position' }) position: number;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) addedAt: string;
  @ApiProperty({ type: CollectionContentSummaryDto }) content: CollectionContentSummaryDto;
}

export function toCollectionItemResponse(row: CollectionItemRow): CollectionItemResponseDto {
  const c = row.content;
  return {
    contentId: row.contentId,
    position: row.position,
    addedAt: row.addedAt.toISOString(),
    content: {
      id: c.id,
      type: c.type,
      title: c.title,
      slug: c.slug,
      excerpt: c.excerpt,
      status: c.status,
      publishedAt: c.publishedAt?.toISOString() ?? null,
      thumbnail: c.thumbnail,
    },
  };
}
