import { ValidationProblem } from '../common/errors/problems';
import { assertTransition, ContentStatus } from './content-status';
import type { RevisionAction } from './entities/content-revision.entity';

export interface Lifecycle {
  status: ContentStatus;
  publishAt: Date | null;
  publishedAt: Date | null;
}

export interface LifecycleRequest {
  status?: ContentStatus;
  publishAt?: Date;
  publishedAt?: Date;
}

export interface LifecycleChange extends Lifecycle {
  action: RevisionAction;
}

/** Where a new item starts: creating it moves it from here. */
export const NEW_ITEM: Lifecycle = Object.freeze({ status: 'draft', publishAt: null, publishedAt: null });

/**
 * Applies a status request to an item's lifecycle (API.md §5, docs/content.md).
 * - `explicit` (the publish and unpublish actions): the transition is always checked, so
 *   publishing a published item is a 409. Otherwise (create, update) asking for the status the
 *   item already has changes nothing.
 * - A publishAt without a status means "schedule". Scheduling needs a future publishAt.
 * - Publishing keeps an earlier publishedAt (publishing again keeps the original date) unless
 *   one is given; a scheduled item gets its publishAt when the job publishes it.
 */
export function nextLifecycle(current: Lifecycle, req: LifecycleRequest, now: Date, explicit = false): LifecycleChange {
  const target = req.status ?? (req.publishAt !== undefined ? 'scheduled' : current.status);
  if (req.publishAt !== undefined && target !== 'scheduled') {
    throw new ValidationProblem([{ path: 'publishAt', message: 'applies only when scheduling (status scheduled)' }]);
  }
  const reschedules =
    target === 'scheduled' && req.publishAt !== undefined && req.publishAt.getTime() !== current.publishAt?.getTime();
  const moves = explicit || target !== current.status || reschedules;
  const publishedAt = req.publishedAt ?? current.publishedAt;
  if (!moves) return { ...current, publishedAt, action: 'updated' };

  assertTransition(current.status, target);
  switch (target) {
    case 'scheduled': {
      const publishAt = req.publishAt ?? current.publishAt;
      if (!publishAt) throw new ValidationProblem([{ path: 'publishAt', message: 'is required to schedule' }]);
      if (publishAt.getTime() <= now.getTime())
        throw new ValidationProblem([{ path: 'publishAt', message: 'must be in the future' }]);
      return { status: 'scheduled', publishAt, publishedAt, action: 'scheduled' };
    }
    case 'published':
      return { status: 'published', publishAt: null, publishedAt: publishedAt ?? now, action: 'published' };
    case 'draft':
      return { status: 'draft', publishAt: null, publishedAt, action: 'unpublished' };
    case 'archived':
      return { status: 'archived', publishAt: null, publishedAt, action: 'archived' };
  }
}
