import { defineProblems } from '../common/errors/problem-codes';

/** The problem codes of lists, subscriptions, import, campaigns, series and their mailed links (besides the shared ones, common.problems.ts). */
export const NEWSLETTER_PROBLEMS = defineProblems('newsletter', {
  invalid_file: 400,
  invalid_token: 400,
  malformed_multipart: 400,
  too_many_parts: 400,
  address_complained: 409,
  campaign_not_editable: 409,
  campaign_sending: 409,
  duplicate_slug: 409,
  transition_forbidden: 409,
  token_expired: 410,
  token_used: 410,
});

export type NewsletterProblem = keyof typeof NEWSLETTER_PROBLEMS;
type Declared = typeof NEWSLETTER_PROBLEMS;

declare module '../common/errors/problem-codes' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges into the registry
  interface ProblemCodes extends Declared {}
}
