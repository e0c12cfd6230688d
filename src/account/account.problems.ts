import { defineProblems } from '../common/errors/problem-codes';

/** The problem codes of account administration: sites and the account deletion (besides the shared ones, common.problems.ts). */
export const ACCOUNT_PROBLEMS = defineProblems('account', {
  site_not_in_account: 403,
  deletion_not_found: 404,
  deletion_in_progress: 409,
  duplicate_site_name: 409,
});

export type AccountProblem = keyof typeof ACCOUNT_PROBLEMS;
type Declared = typeof ACCOUNT_PROBLEMS;

declare module '../common/errors/problem-codes' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges into the registry
  interface ProblemCodes extends Declared {}
}
