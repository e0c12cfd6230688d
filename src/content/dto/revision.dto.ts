import { ID, ID_LIST } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ContentSnapshot } from '../content-snapshot';
import { CONTENT_STATUSES, ContentStatus } from '../content-status';
import type { ActorType, ContentRevisionEntity, RevisionAction } from '../entities/content-revision.entity';
import { AuthorDto } from './content.dto';

const ACTIONS: RevisionAction[] = [
  'created',
  'updated',
  'published',
  'scheduled',
  'unpublished',
  'archived',
  'restored',
];

export class RevisionActorDto {
  @ApiProperty({
    enum: ['key', 'user', 'system'],
    description: '`system`: the scheduler, or a deleted media item taken out of the attachments',
  })
  type: ActorType;
  @ApiProperty({ ...ID, nullable: true, example: 3, description: 'API key id or site-user id' }) id: number | null;
}

export class ContentSnapshotDto implements ContentSnapshot {
  @ApiProperty() type: string;
  @ApiProperty() title: string;
  @ApiProperty() slug: string;
  @ApiProperty() content: string;
  @ApiProperty({ enum: ['html', 'markdown'] }) format: 'html' | 'markdown';
  @ApiProperty() excerpt: string;
  @ApiProperty({ enum: CONTENT_STATUSES }) status: ContentStatus;
  @ApiProperty({ ...DATE_TIME, nullable: true }) publishAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) publishedAt: string | null;
  @ApiProperty({ type: [String] }) tags: string[];
  @ApiProperty({ type: [String] }) categories: string[];
  @ApiProperty({ type: [AuthorDto] }) authors: AuthorDto[];
  @ApiProperty() template: string;
  @ApiProperty() thumbnail: string;
  @ApiProperty() description: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) customFields: Record<string, unknown>;
  @ApiProperty({ ...ID_LIST }) attachmentIds: number[];
}

export class RevisionSummaryDto {
  @ApiProperty({ ...ID, example: 5 }) id: number;
  @ApiProperty({ ...ID, example: 1 }) contentId: number;
  @ApiProperty({ example: 2, description: '1, 2, 3 … per item; equals the item version after the change' })
  number: number;
  @ApiProperty({ enum: ACTIONS }) action: RevisionAction;
  @ApiProperty({ type: RevisionActorDto }) actor: RevisionActorDto;
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'For `restored`: the number of the revision brought back',
  })
  restoredFrom: number | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
}

export class RevisionResponseDto extends RevisionSummaryDto {
  @ApiProperty({ type: ContentSnapshotDto, description: 'Every field of the item after this change' })
  snapshot: ContentSnapshotDto;
}

export function toRevisionSummary(r: ContentRevisionEntity): RevisionSummaryDto {
  return {
    id: r.id,
    contentId: r.contentId,
    number: r.number,
    action: r.action,
    actor: { type: r.actorType, id: r.actorId },
    restoredFrom: r.restoredFrom,
    createdAt: r.createdAt.toISOString(),
  };
}

export function toRevisionResponse(r: ContentRevisionEntity): RevisionResponseDto {
  return { ...toRevisionSummary(r), snapshot: r.snapshot };
}
