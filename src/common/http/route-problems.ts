import { RequestMethod, Type } from '@nestjs/common';
import { idempotencyPolicy } from '../idempotency/idempotent.decorator';
import { handlerMethod, handlerPaths } from '../internals/nest-metadata';
import { SKIP_RATE_LIMIT } from '../rate-limit/rate-limit.guard';
import { routeBody } from './route-body';
import type { RouteOptions } from './route.decorator';

/** Path parameters that name the site (resolved by the AuthGuard: unknown is a 404). */
export const SITE_PARAMS = new Set(['siteName', 'site_name']);

/** A handler as Nest and @nestjs/swagger keep their metadata on it. */
export type RouteHandler = (...args: unknown[]) => unknown;

const WRITES = new Set<RequestMethod>([RequestMethod.POST, RequestMethod.PUT, RequestMethod.PATCH]);

/**
 * Every problem status a route can answer, derived from its declaration so that no operation
 * lists fewer than the server gives (docs/openapi.md, "Answers"):
 * - 400 on every route: a malformed query string or a body sent to a route that takes none is
 *   refused before any handler (besides its path parameters, query, body and headers);
 * - 401 for any credential it documents; 403 with it, as a credential may be refused (a key without
 *   the route's permission, a publishable key from an origin it does not allow, a session on a key
 *   route, a restricted or deleting account's key on a write, a key on a session-only route);
 * - 404 under a path with parameters (no such site, or no such resource in it);
 * - 405 on every path: another method of the same path answers it with `Allow`;
 * - 409 where Idempotency-Key is honoured (`idempotency_key_reused`);
 * - 413 on every write (a body too large); 415 on every route (a Content-Encoding, or a body of a
 *   media type the route does not read, is refused on a GET as on a write);
 * - 429 unless the route is never rate limited.
 * A route's own `problems` name only what is not here (ApiController refuses the rest at start-up).
 */
export function derivedProblems(
  cls: Type | Function,
  handler: RouteHandler,
  options: RouteOptions,
  controllerParams: string[],
): number[] {
  const method = handlerMethod(handler) as RequestMethod;
  const paths = handlerPaths(handler) ?? [];
  const params = [...controllerParams, ...paths.flatMap((p) => [...p.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]))];
  const write = WRITES.has(method);
  // The policy the interceptor applies (idempotent.decorator.ts), which documentIdempotency documents.
  const idempotent = idempotencyPolicy(handler)?.kind === 'honoured';
  const body = routeBody(handler).kind !== 'none';
  const skipRateLimit =
    Reflect.getMetadata(SKIP_RATE_LIMIT, handler) === true || Reflect.getMetadata(SKIP_RATE_LIMIT, cls) === true;

  const problems = new Set<number>();
  const add = (...statuses: number[]) => statuses.forEach((s) => problems.add(s));
  // Any request may carry a query string and a body: refusing either is a 400 on every route
  // (refuseMalformedQuery, RequestBodyGuard), and a Content-Encoding a 415 (refuseContentEncoding).
  add(400, 415);
  // Every route that takes a key may refuse one: 401 a wrong key, 403 a key without the
  // permission or a publishable key from an origin it does not allow.
  if (options.auth !== 'public' || options.publishable) add(401, 403);
  if (params.length > 0) add(404);
  add(405);
  if (idempotent) add(409);
  if (body || write) add(413);
  if (!skipRateLimit) add(429);
  return [...problems].sort((a, b) => a - b);
}

/**
 * An anonymous GET of a site's public route answers 304 to an `If-None-Match` naming its ETag
 * (public-read-cache.ts): such operations document it.
 */
export function answersNotModified(handler: RouteHandler, options: RouteOptions, params: string[]): boolean {
  const method = handlerMethod(handler);
  return (
    method === RequestMethod.GET &&
    (options.auth === 'public' || options.auth === 'optional-key') &&
    params.some((p) => SITE_PARAMS.has(p))
  );
}
