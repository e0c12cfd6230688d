import { defineProblems } from '../common/errors/problem-codes';

/** The problem codes of collections and their items (besides the shared ones, common.problems.ts). */
export const COLLECTIONS_PROBLEMS = defineProblems('collections', {
  duplicate_item: 409,
  duplicate_slug: 409,
  pinned_conflict: 409,
});

export type CollectionsProblem = keyof typeof COLLECTIONS_PROBLEMS;
type Declared = typeof COLLECTIONS_PROBLEMS;

declare module '../common/errors/problem-codes' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges into the registry
  interface ProblemCodes extends Declared {}
}
