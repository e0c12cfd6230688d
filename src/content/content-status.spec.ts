import { Problem } from '../common/errors/problems';
import { assertTransition, canTransition, CONTENT_STATUSES, ContentStatus } from './content-status';

describe('content status transitions', () => {
  const allowed: Array<[ContentStatus, ContentStatus]> = [
    ['draft', 'published'],
    ['published', 'draft'],
    ['draft', 'scheduled'],
    ['scheduled', 'published'],
    ['scheduled', 'draft'],
    ['scheduled', 'scheduled'],
    ['draft', 'archived'],
    ['scheduled', 'archived'],
    ['published', 'archived'],
  ];

  it('allows exactly the listed transitions', () => {
    const actual = CONTENT_STATUSES.flatMap((from) =>
      CONTENT_STATUSES.filter((to) => canTransition(from, to)).map((to) => [from, to]),
    );
    expect(actual.sort()).toEqual([...allowed].sort());
  });

  it.each([
    ['published', 'published'],
    ['published', 'scheduled'],
    ['draft', 'draft'],
    ['archived', 'draft'],
    ['archived', 'published'],
    ['archived', 'archived'],
  ] as Array<[ContentStatus, ContentStatus]>)('%s -> %s is a 409 transition_forbidden', (from, to) => {
    try {
      assertTransition(from, to);
      throw new Error('expected a problem');
    } catch (e) {
      expect(e).toBeInstanceOf(Problem);
      expect((e as Problem).getStatus()).toBe(409);
      expect((e as Problem).code).toBe('transition_forbidden');
    }
  });
});
