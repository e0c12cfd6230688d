import { ValidationProblem } from '../common/errors/problems';

export interface CollectionWindow {
  startsAt: Date | null;
  endsAt: Date | null;
}

/** A window is open-ended without endsAt; an end needs a start before it. */
export function assertWindow({ startsAt, endsAt }: CollectionWindow): void {
  if (endsAt === null) return;
  if (startsAt === null) throw new ValidationProblem([{ path: 'endsAt', message: 'needs startsAt' }]);
  if (endsAt.getTime() <= startsAt.getTime())
    throw new ValidationProblem([{ path: 'endsAt', message: 'must be after startsAt' }]);
}
