import { defineProblems } from '../common/errors/problem-codes';

/** The problem codes of pages and posts (besides the shared ones, common.problems.ts). */
export const CONTENT_PROBLEMS = defineProblems('content', {
  duplicate_slug: 409,
  transition_forbidden: 409,
});

export type ContentProblem = keyof typeof CONTENT_PROBLEMS;
type Declared = typeof CONTENT_PROBLEMS;

declare module '../common/errors/problem-codes' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges into the registry
  interface ProblemCodes extends Declared {}
}
