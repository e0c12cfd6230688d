// @file lifecycle
import { SampleThingStatus } from './entities/sample-thing.entity';

/**
 * Where a sample thing may go from each status: the whole lifecycle, one table
 * (docs/sample-things.md). Staying where it is is always allowed; an archived one goes back
 * through draft before it is published again.
 */
export const SAMPLE_THING_MOVES: Readonly<Record<SampleThingStatus, readonly SampleThingStatus[]>> = Object.freeze({
  draft: ['published', 'archived'],
  published: ['draft', 'archived'],
  archived: ['draft'],
});

export function canMove(from: SampleThingStatus, to: SampleThingStatus): boolean {
  return from === to || SAMPLE_THING_MOVES[from].includes(to);
}
