import { Problem } from '../common/errors/problems';
import { Lifecycle, NEW_ITEM, nextLifecycle } from './content-lifecycle';

const now = new Date('2026-03-01T12:00:00.000Z');
const past = new Date('2026-01-01T00:00:00.000Z');
const future = new Date('2026-04-01T00:00:00.000Z');
const later = new Date('2026-05-01T00:00:00.000Z');

function problemOf(fn: () => unknown): { status: number; code: string; errors?: unknown } {
  try {
    fn();
  } catch (e) {
    if (e instanceof Problem) return { status: e.getStatus(), code: e.code, errors: e.errors };
    throw e;
  }
  throw new Error('expected a problem');
}

describe('content lifecycle', () => {
  it('creates drafts by default and publishes now, or at a given past date', () => {
    expect(nextLifecycle(NEW_ITEM, {}, now)).toEqual({
      status: 'draft',
      publishAt: null,
      publishedAt: null,
      action: 'updated',
    });
    expect(nextLifecycle(NEW_ITEM, { status: 'published' }, now)).toEqual({
      status: 'published',
      publishAt: null,
      publishedAt: now,
      action: 'published',
    });
    expect(nextLifecycle(NEW_ITEM, { status: 'published', publishedAt: past }, now).publishedAt).toBe(past);
  });

  it('schedules with a future publishAt, with or without the status', () => {
    const expected = { status: 'scheduled', publishAt: future, publishedAt: null, action: 'scheduled' };
    expect(nextLifecycle(NEW_ITEM, { status: 'scheduled', publishAt: future }, now)).toEqual(expected);
    expect(nextLifecycle(NEW_ITEM, { publishAt: future }, now)).toEqual(expected);
  });

  it('rejects a schedule without a future publishAt, and a publishAt for another status', () => {
    expect(problemOf(() => nextLifecycle(NEW_ITEM, { status: 'scheduled' }, now))).toEqual({
      status: 400,
      code: 'validation_failed',
      errors: [{ path: 'publishAt', message: 'is required to schedule' }],
    });
    expect(problemOf(() => nextLifecycle(NEW_ITEM, { publishAt: past }, now))).toEqual({
      status: 400,
      code: 'validation_failed',
      errors: [{ path: 'publishAt', message: 'must be in the future' }],
    });
    expect(problemOf(() => nextLifecycle(NEW_ITEM, { status: 'published', publishAt: future }, now)).code).toBe(
      'validation_failed',
    );
  });

  it('reschedules and cancels a schedule', () => {
    const scheduled: Lifecycle = { status: 'scheduled', publishAt: future, publishedAt: null };
    expect(nextLifecycle(scheduled, { publishAt: later }, now)).toEqual({
      status: 'scheduled',
      publishAt: later,
      publishedAt: null,
      action: 'scheduled',
    });
    expect(nextLifecycle(scheduled, { status: 'draft' }, now)).toEqual({
      status: 'draft',
      publishAt: null,
      publishedAt: null,
      action: 'unpublished',
    });
    // Editing a scheduled item keeps its schedule.
    expect(nextLifecycle(scheduled, { status: 'scheduled' }, now)).toEqual({ ...scheduled, action: 'updated' });
  });

  it('keeps the first publication date across unpublish and publish', () => {
    const published: Lifecycle = { status: 'published', publishAt: null, publishedAt: past };
    const draft = nextLifecycle(published, { status: 'draft' }, now, true);
    expect(draft).toEqual({ status: 'draft', publishAt: null, publishedAt: past, action: 'unpublished' });
    expect(nextLifecycle(draft, { status: 'published' }, now, true).publishedAt).toBe(past);
  });

  it('treats the same status as no change, unless the action is explicit', () => {
    const published: Lifecycle = { status: 'published', publishAt: null, publishedAt: past };
    expect(nextLifecycle(published, { status: 'published' }, now).action).toBe('updated');
    expect(problemOf(() => nextLifecycle(published, { status: 'published' }, now, true))).toEqual({
      status: 409,
      code: 'transition_forbidden',
      errors: undefined,
    });
  });

  it('archives from any status and never leaves archived', () => {
    const published: Lifecycle = { status: 'published', publishAt: null, publishedAt: past };
    const archived = nextLifecycle(published, { status: 'archived' }, now);
    expect(archived).toEqual({ status: 'archived', publishAt: null, publishedAt: past, action: 'archived' });
    expect(problemOf(() => nextLifecycle(archived, { status: 'draft' }, now)).code).toBe('transition_forbidden');
    expect(problemOf(() => nextLifecycle(archived, { status: 'published' }, now, true)).code).toBe(
      'transition_forbidden',
    );
  });
});
