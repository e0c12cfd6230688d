// @file lifecycle
import { SAMPLE_THING_STATUSES } from './entities/sample-thing.entity';
import { canMove, SAMPLE_THING_MOVES } from './sample-thing-lifecycle';

describe('the sample thing lifecycle', () => {
  it('names every status, and only statuses, in its table', () => {
    expect(Object.keys(SAMPLE_THING_MOVES).sort()).toEqual([...SAMPLE_THING_STATUSES].sort());
    for (const to of Object.values(SAMPLE_THING_MOVES).flat()) expect(SAMPLE_THING_STATUSES).toContain(to);
  });

  it.each([
    ['draft', 'published', true],
    ['draft', 'archived', true],
    ['published', 'draft', true],
    ['published', 'archived', true],
    ['archived', 'draft', true],
    ['archived', 'published', false],
    ['archived', 'archived', true],
  ] as const)('%s -> %s: %s', (from, to, allowed) => {
    expect(canMove(from, to)).toBe(allowed);
  });
});
