import { ROUTE_COSTS } from '../../src/common/rate-limit/route-costs';

/**
 * Settings that lift every per-key, per-session and per-account budget (0 is "no limit"), and
 * the public limit far out of reach: for the sweeps that send thousands of requests with one key
 * and must see every 4xx come from their input, not from a budget the rate-limit and fair-share
 * specs test.
 */
export function unlimitedBudgets(): Record<string, string> {
  return {
    ...Object.fromEntries(
      [
        'RATE_LIMIT_KEY_MAX',
        'RATE_LIMIT_SESSION_MAX',
        ...Object.values(ROUTE_COSTS).flatMap((c) => [c.max, c.concurrency]),
        'NEWSLETTER_ACCOUNT_IMPORTS_MAX',
      ].map((name) => [name, '0']),
    ),
    RATE_LIMIT_PUBLIC_MAX: '1000000',
  };
}
