import { ConflictProblem } from '../common/errors/problems';

export const CONTENT_STATUSES = ['draft', 'scheduled', 'published', 'archived'] as const;
export type ContentStatus = (typeof CONTENT_STATUSES)[number];

/**
 * API.md §5: draft -> published -> draft, draft -> scheduled -> published, any -> archived.
 * Two more, because a schedule must be changeable (docs/content.md): scheduled -> draft
 * (unpublish cancels it) and scheduled -> scheduled (publish again at another time).
 * Archived is final; a new item or a restore into another item starts over.
 */
const TRANSITIONS: Record<ContentStatus, readonly ContentStatus[]> = {
  draft: ['published', 'scheduled', 'archived'],
  scheduled: ['published', 'scheduled', 'draft', 'archived'],
  published: ['draft', 'archived'],
  archived: [],
};

export function canTransition(from: ContentStatus, to: ContentStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** A forbidden transition is a 409 `transition_forbidden`; the caller changes nothing. */
export function assertTransition(from: ContentStatus, to: ContentStatus): void {
  if (!canTransition(from, to)) {
    throw new ConflictProblem('transition_forbidden', `Content cannot go from ${from} to ${to}`);
  }
}
