import { defineProblems } from '../common/errors/problem-codes';

/** The problem codes of sample things (besides the shared ones, common.problems.ts). */
export const SAMPLE_THINGS_PROBLEMS = defineProblems('sample-things', {
  duplicate_slug: 409,
  // @if lifecycle
  transition_forbidden: 409,
  // @end
});

type Declared = typeof SAMPLE_THINGS_PROBLEMS;

declare module '../common/errors/problem-codes' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges into the registry
  interface ProblemCodes extends Declared {}
}
