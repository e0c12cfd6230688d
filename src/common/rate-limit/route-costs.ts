import { LimitsConfig } from '../../config/limits.config';

/**
 * Expensive work a route declares with `@Route({ cost })` (docs/foundation.md, "Fair share"):
 * each cost has a budget per account, shared by every key and session of the account, of
 * requests per RATE_LIMIT_TTL_MS window (counted across instances) and of requests in flight
 * at once (per instance). 0 turns either off.
 */
export const ROUTE_COSTS = {
  render: {
    what: 'renders mail now (sends, template previews): Liquid, CSS inlining and text parts',
    max: 'RATE_LIMIT_RENDER_MAX',
    concurrency: 'RATE_LIMIT_RENDER_CONCURRENCY',
  },
  outbound: {
    what: 'reaches out now or makes keys (test sends, webhook tests and retries, sender domain keys and DNS checks)',
    max: 'RATE_LIMIT_OUTBOUND_MAX',
    concurrency: 'RATE_LIMIT_OUTBOUND_CONCURRENCY',
  },
  import: {
    what: 'writes many rows at once (imports, list syncs, bulk actions)',
    max: 'RATE_LIMIT_IMPORT_MAX',
    concurrency: 'RATE_LIMIT_IMPORT_CONCURRENCY',
  },
  upload: {
    what: 'stores and processes files (uploads)',
    max: 'RATE_LIMIT_UPLOAD_MAX',
    concurrency: 'RATE_LIMIT_UPLOAD_CONCURRENCY',
  },
} as const satisfies Record<string, { what: string; max: keyof LimitsConfig; concurrency: keyof LimitsConfig }>;

export type RouteCost = keyof typeof ROUTE_COSTS;

/** A cost's budget as configured. */
export function budgetOf(config: LimitsConfig, cost: RouteCost): { max: number; concurrency: number } {
  const names = ROUTE_COSTS[cost];
  return { max: config[names.max], concurrency: config[names.concurrency] };
}

/** The 429 of a route with a cost, as OpenAPI shows it: the budget, with its defaults. */
export function costDescription(cost: RouteCost): string {
  const names = ROUTE_COSTS[cost];
  const { max, concurrency } = budgetOf(new LimitsConfig(), cost);
  return (
    `Rate limited; see Retry-After. This route ${names.what}: it counts against the account's \`${cost}\` ` +
    `budget, shared by all its keys: ${names.max} requests a window (default ${max} a minute) and ` +
    `${names.concurrency} at once (default ${concurrency}), besides the key's own RATE_LIMIT_KEY_MAX.`
  );
}
