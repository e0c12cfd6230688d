import { ConflictProblem } from '../../common/errors/problems';
import type { SeriesStatus } from '../entities/series.entity';

/**
 * API.md §5: transitions not listed answer 409. A series is paused (its steps are held) and
 * resumed (held steps that fell due go out at once); asking for the state it is in is no move.
 */
const MOVES: Record<SeriesStatus, readonly SeriesStatus[]> = {
  active: ['paused'],
  paused: ['active'],
};

export function canMoveSeries(from: SeriesStatus, to: SeriesStatus): boolean {
  return MOVES[from].includes(to);
}

export function assertSeriesMove(from: SeriesStatus, to: SeriesStatus): void {
  if (!canMoveSeries(from, to))
    throw new ConflictProblem('transition_forbidden', `A series that is ${from} cannot move to ${to}`);
}

/** The next step after `position` in the series' order, if any. */
export function nextStep<S extends { position: number }>(steps: readonly S[], position: number): S | null {
  let best: S | null = null;
  for (const s of steps) if (s.position > position && (!best || s.position < best.position)) best = s;
  return best;
}
