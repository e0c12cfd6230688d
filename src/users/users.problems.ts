import { defineProblems } from '../common/errors/problem-codes';

/** The problem codes of site users: sign-in, credits, subscriptions, erasure (besides the shared ones, common.problems.ts). */
export const USERS_PROBLEMS = defineProblems('users', {
  invalid_code: 401,
  user_disabled: 403,
  deletion_not_found: 404,
  deletion_in_progress: 409,
  email_taken: 409,
  insufficient_credits: 409,
  plan_unchanged: 409,
  transition_forbidden: 409,
});

export type UsersProblem = keyof typeof USERS_PROBLEMS;
type Declared = typeof USERS_PROBLEMS;

declare module '../common/errors/problem-codes' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges into the registry
  interface ProblemCodes extends Declared {}
}
