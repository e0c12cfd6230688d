import { defineProblems } from '../common/errors/problem-codes';

/** The problem codes of orders, their status and the fulfillment provider’s notifications (besides the shared ones, common.problems.ts). */
export const ORDERS_PROBLEMS = defineProblems('orders', {
  hold_cooldown: 409,
  hold_limit_exceeded: 409,
  invalid_signature: 401,
  order_expired: 409,
  /** The order is paid through the site's processor (Stripe): its events and the refund route move it, not PATCH …/payment. */
  processor_managed: 409,
  quantity_exceeds_order: 409,
  too_many_pending_orders: 409,
  transition_forbidden: 409,
});

export type OrdersProblem = keyof typeof ORDERS_PROBLEMS;
type Declared = typeof ORDERS_PROBLEMS;

declare module '../common/errors/problem-codes' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges into the registry
  interface ProblemCodes extends Declared {}
}
