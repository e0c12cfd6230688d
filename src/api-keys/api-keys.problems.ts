import { defineProblems } from '../common/errors/problem-codes';

/** The problem codes of API keys (besides the shared ones, common.problems.ts). */
export const API_KEYS_PROBLEMS = defineProblems('api-keys', {
  last_key: 409,
  longer_lived_key: 403,
});

export type ApiKeysProblem = keyof typeof API_KEYS_PROBLEMS;
type Declared = typeof API_KEYS_PROBLEMS;

declare module '../common/errors/problem-codes' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges into the registry
  interface ProblemCodes extends Declared {}
}
