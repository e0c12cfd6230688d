import { defineProblems } from '../common/errors/problem-codes';

/** The problem codes of sender domains (besides the shared ones, common.problems.ts). */
export const SENDERS_PROBLEMS = defineProblems('senders', {
  domain_exists: 409,
  limit_reached: 409,
  dns_records_missing: 422,
  dns_timeout: 503,
  dns_unavailable: 503,
});

export type SendersProblem = keyof typeof SENDERS_PROBLEMS;
type Declared = typeof SENDERS_PROBLEMS;

declare module '../common/errors/problem-codes' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges into the registry
  interface ProblemCodes extends Declared {}
}
