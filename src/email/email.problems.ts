import { defineProblems } from '../common/errors/problem-codes';

/** The problem codes of templates and sending (besides the shared ones, common.problems.ts). */
export const EMAIL_PROBLEMS = defineProblems('email', {
  invalid_mail: 400,
  invalid_signature: 401,
  malformed_event: 400,
  sns_unavailable: 503,
  template_type_not_found: 404,
  template_published: 409,
  transition_forbidden: 409,
  already_suppressed: 409,
  suppression_complained: 409,
});

export type EmailProblem = keyof typeof EMAIL_PROBLEMS;
type Declared = typeof EMAIL_PROBLEMS;

declare module '../common/errors/problem-codes' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges into the registry
  interface ProblemCodes extends Declared {}
}
