import { defineEvents, DomainEvent, event } from '../common/outbox/events';
import type { ContentStatus } from './content-status';
import type { RevisionAction } from './entities/content-revision.entity';

export interface ContentEventPayload {
  id: number;
  type: string;
  slug: string;
  status: ContentStatus;
  version: number;
}

export interface ContentDeletedPayload {
  id: number;
  type: string;
  slug: string;
}

/** Events this module writes to the outbox. */
export const CONTENT_EVENTS = defineEvents('content', {
  created: event<ContentEventPayload>('content.created', 'A content item was created'),
  updated: event<ContentEventPayload>('content.updated', 'A content item changed (an edit, a schedule, a restore)'),
  published: event<ContentEventPayload>('content.published', 'A content item became visible to readers'),
  unpublished: event<ContentEventPayload>('content.unpublished', 'A published content item was withdrawn'),
  deleted: event<ContentDeletedPayload>('content.deleted', 'A content item and its revisions were deleted'),
});

const { created: CONTENT_CREATED, updated: CONTENT_UPDATED } = CONTENT_EVENTS;
const { published: CONTENT_PUBLISHED, unpublished: CONTENT_UNPUBLISHED } = CONTENT_EVENTS;

/**
 * The events of one change: created/updated for edits, published/unpublished when an action
 * changes what readers see (a create that publishes says both; archiving a published item
 * says updated and unpublished).
 */
export function eventsOf(
  action: RevisionAction,
  before: ContentStatus | null,
  after: ContentStatus,
): Array<DomainEvent<ContentEventPayload>> {
  switch (action) {
    case 'created':
      return after === 'published' ? [CONTENT_CREATED, CONTENT_PUBLISHED] : [CONTENT_CREATED];
    case 'published':
      return [CONTENT_PUBLISHED];
    case 'unpublished':
      return before === 'published' ? [CONTENT_UNPUBLISHED] : [CONTENT_UPDATED];
    case 'archived':
      return before === 'published' ? [CONTENT_UPDATED, CONTENT_UNPUBLISHED] : [CONTENT_UPDATED];
    default:
      return [CONTENT_UPDATED];
  }
}
