import { defineProblems } from '../common/errors/problem-codes';

/** The problem codes of the readiness probe (besides the shared ones, common.problems.ts). */
export const HEALTH_PROBLEMS = defineProblems('health', {
  not_ready: 503,
});

export type HealthProblem = keyof typeof HEALTH_PROBLEMS;
type Declared = typeof HEALTH_PROBLEMS;

declare module '../common/errors/problem-codes' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges into the registry
  interface ProblemCodes extends Declared {}
}
