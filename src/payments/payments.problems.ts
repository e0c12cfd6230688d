import { defineProblems } from '../common/errors/problem-codes';

/** The problem codes of payments: the processor's connection, its events and what is paid through it (besides the shared ones, common.problems.ts). */
export const PAYMENTS_PROBLEMS = defineProblems('payments', {
  /** The site has no Stripe connection (or none in the mode asked for). */
  processor_not_connected: 409,
  /** The server has no SECRETS_ENCRYPTION_KEY to seal a site's keys with. */
  secrets_key_missing: 409,
  /** A Stripe event whose signature does not verify with the site's secret, or is stale. */
  invalid_processor_signature: 401,
  /** Stripe refused or could not be reached; nothing was changed in Sitebase. */
  processor_unavailable: 503,
  /** Stripe refused the request for a reason of the payment itself (a card declined, ...). */
  processor_declined: 409,
});

export type PaymentsProblem = keyof typeof PAYMENTS_PROBLEMS;
type Declared = typeof PAYMENTS_PROBLEMS;

declare module '../common/errors/problem-codes' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges into the registry
  interface ProblemCodes extends Declared {}
}
