import { defineProblems } from '../common/errors/problem-codes';

/** The problem codes of webhook endpoints (besides the shared ones, common.problems.ts). */
export const WEBHOOKS_PROBLEMS = defineProblems('webhooks', {
  limit_reached: 409,
});

export type WebhooksProblem = keyof typeof WEBHOOKS_PROBLEMS;
type Declared = typeof WEBHOOKS_PROBLEMS;

declare module '../common/errors/problem-codes' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges into the registry
  interface ProblemCodes extends Declared {}
}
