import { defineProblems } from './problem-codes';

/**
 * The problem codes of the foundation (src/common, src/database): any route may answer them,
 * whatever its module. A module's own codes are in its `<module>.problems.ts`.
 */
export const COMMON_PROBLEMS = defineProblems('common', {
  // 400: the request itself (problems.ts, common/input, common/pagination, common/templates, ...)
  bad_request: 400,
  validation_failed: 400,
  malformed_json: 400,
  json_too_deep: 400,
  missing_body: 400,
  invalid_value: 400,
  invalid_cursor: 400,
  idempotency_key_unsupported: 400,
  invalid_idempotency_key: 400,
  template_limit_exceeded: 400,
  template_render_failed: 400,
  // 401 and 403: credentials (common/auth, the metrics endpoint)
  unauthorized: 401,
  missing_credential: 401,
  missing_api_key: 401,
  invalid_api_key: 401,
  malformed_authorization: 401,
  missing_session: 401,
  invalid_session: 401,
  invalid_metrics_token: 401,
  forbidden: 403,
  session_not_allowed: 403,
  session_required: 403,
  key_restricted: 403,
  insufficient_permission: 403,
  secret_replaced: 403,
  origin_not_allowed: 403,
  user_pending_deletion: 403,
  account_pending_deletion: 403,
  // 404, 405, 406: the resource, the site, the route
  not_found: 404,
  site_not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  // 409: PostgreSQL's answers (postgres-errors.ts) and Idempotency-Key
  conflict: 409,
  duplicate: 409,
  reference_conflict: 409,
  concurrent_update: 409,
  idempotency_key_reused: 409,
  idempotency_request_in_progress: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unsupported_content_encoding: 415,
  unprocessable_content: 422,
  rate_limited: 429,
  internal_error: 500,
  metrics_unavailable: 503,
});

export type CommonProblem = keyof typeof COMMON_PROBLEMS;
type Declared = typeof COMMON_PROBLEMS;

declare module './problem-codes' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges into the registry
  interface ProblemCodes extends Declared {}
}
