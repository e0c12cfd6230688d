import { createSitebaseFor, Sitebase, SitebaseOptions } from './client';
import type { paths } from './generated/openapi';

export type { components, operations, paths } from './generated/openapi';
export type { CheckedMethod, PageItem, PaginatedPath, SitebaseOptions, Success } from './client';
export { createSitebaseFor } from './client';
export { OPERATION_PERMISSIONS, PUBLISHABLE_OPERATIONS } from './generated/permissions';
export { SitebaseProblem } from './problem';
export type { FieldError, Problem } from './problem';
export { retryAfterMs } from './retry';
export type { RetryOptions } from './retry';

/** A client of every Sitebase operation, typed by the document this package was built from. */
export type SitebaseClient = Sitebase<paths>;

/**
 * `createSitebase({ baseUrl, apiKey })` (or `session`): checked calls (`sb.GET`, `sb.POST`, …)
 * that answer `{ data, response }` or throw a `SitebaseProblem`, `sb.paginate()` for lists and
 * `sb.raw` for openapi-fetch's `{ data, error, response }`.
 */
export function createSitebase(options: SitebaseOptions): SitebaseClient {
  return createSitebaseFor<paths>(options);
}
