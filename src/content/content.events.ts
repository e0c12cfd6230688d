import type { ContentStatus } from './content-status';
import type { RevisionAction } from './entities/content-revision.entity';

export const CONTENT_CREATED = 'content.created';
export const CONTENT_UPDATED = 'content.updated';
export const CONTENT_PUBLISHED = 'content.published';
export const CONTENT_UNPUBLISHED = 'content.unpublished';
export const CONTENT_DELETED = 'content.deleted';

export interface ContentEventPayload {
  id: number;
  type: string;
  slug: string;
  status: ContentStatus;
  version: number;
}

/**
 * The events of one change: created/updated for edits, published/unpublished when an action
 * changes what readers see (a create that publishes says both; archiving a published item
 * says updated and unpublished).
 */
export function eventsOf(action: RevisionAction, before: ContentStatus | null, after: ContentStatus): string[] {
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
