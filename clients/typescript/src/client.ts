import createClient, { Client, FetchResponse, MaybeOptionalInit, Middleware } from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { SitebaseProblem } from './problem';
import { DEFAULT_RETRY, RetryOptions, retryingFetch } from './retry';

export interface SitebaseOptions {
  /** The server's origin, e.g. `http://localhost:3000` (the document's server is relative: `/`). */
  baseUrl: string;
  /** An API key, sent as `x-api-key`. */
  apiKey?: string;
  /** A site user's session token (from OTP sign-in), sent as `Authorization: Bearer`. */
  session?: string;
  /** Retries of network errors and of 429/503 with Retry-After (`retries: 0` turns them off). */
  retry?: Partial<RetryOptions>;
  /** Give each POST without one a random `Idempotency-Key`, reused by its retries. Default true. */
  idempotencyKeys?: boolean;
  /** Headers sent with every call. */
  headers?: Record<string, string>;
  /** The fetch to call (default: the global one). */
  fetch?: (input: Request) => Promise<Response>;
}

/** What openapi-typescript's `paths` interfaces satisfy. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyPaths = Record<string, any>;

/** openapi-fetch's init argument: optional when the operation needs no parameter and no body. */
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** The success member of openapi-fetch's answer: `data` typed by the operation's 2xx schema. */
export type Success<R> = R extends { data: infer D; error?: never } ? { data: D; response: Response } : never;

/** A method that answers the 2xx and throws a `SitebaseProblem` for anything else. */
export type CheckedMethod<Paths extends AnyPaths, Method extends HttpMethod> = <
  Path extends PathsWithMethod<Paths, Method>,
  Init extends MaybeOptionalInit<Paths[Path], Method>,
>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<Success<FetchResponse<Paths[Path][Method], Init, MediaType>>>;

type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type ListBody<Op> = Op extends { responses: { 200: infer R } } ? JsonBody<R> : never;
type ItemOf<B> = B extends { data: Array<infer T>; pagination: { nextCursor: string | null } } ? T : never;

/** What a cursor-paginated list (`{ data, pagination: { nextCursor } }`) yields, one item at a time. */
export type PageItem<Paths, Path extends keyof Paths> = Paths[Path] extends { get: infer Op }
  ? ItemOf<ListBody<Op>>
  : never;

/** The paths whose GET answers a cursor-paginated list. */
export type PaginatedPath<Paths> = {
  [Path in keyof Paths]: [PageItem<Paths, Path>] extends [never] ? never : Path;
}[keyof Paths];

export interface Sitebase<Paths extends AnyPaths> {
  GET: CheckedMethod<Paths, 'get'>;
  POST: CheckedMethod<Paths, 'post'>;
  PUT: CheckedMethod<Paths, 'put'>;
  PATCH: CheckedMethod<Paths, 'patch'>;
  DELETE: CheckedMethod<Paths, 'delete'>;
  /**
   * Every item of a cursor-paginated list, fetching the next page (`cursor` =
   * `pagination.nextCursor`) as the loop reaches it: `for await (const post of sb.paginate(...))`.
   */
  paginate<Path extends PaginatedPath<Paths> & PathsWithMethod<Paths, 'get'>>(
    url: Path,
    ...init: InitParam<MaybeOptionalInit<Paths[Path], 'get'>>
  ): AsyncGenerator<PageItem<Paths, Path>, void, undefined>;
  /**
   * The same client (auth, Idempotency-Key, retries, middleware) in openapi-fetch's own shape:
   * a problem is answered as `{ error, response }` (typed by the document) instead of thrown.
   */
  raw: Client<Paths>;
  /** Adds openapi-fetch middleware (it sees every call, checked or raw). */
  use(...middleware: Middleware[]): void;
}

/**
 * A Sitebase client over the operations of `Paths` (the types openapi-typescript generated from
 * the document). The package's entry point binds it to the document it was built from.
 */
export function createSitebaseFor<Paths extends AnyPaths>(options: SitebaseOptions): Sitebase<Paths> {
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  if (options.session) headers.authorization = `Bearer ${options.session}`;
  const raw = createClient<Paths>({
    baseUrl: options.baseUrl,
    headers,
    fetch: retryingFetch(options.fetch ?? ((request) => globalThis.fetch(request)), retry),
  });
  if (options.idempotencyKeys !== false) raw.use(idempotencyKeys);

  type Call = (url: string, init?: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  const checked = (call: Call) =>
    (async (url: string, init?: object) => {
      const result = await call(url, init);
      if (!result.response.ok) throw SitebaseProblem.from(result.response, result.error);
      return { data: result.data, response: result.response };
    }) as never;
  const untyped = raw as unknown as Record<'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', Call>;
  const GET = checked(untyped.GET) as CheckedMethod<Paths, 'get'>;

  return {
    GET,
    POST: checked(untyped.POST),
    PUT: checked(untyped.PUT),
    PATCH: checked(untyped.PATCH),
    DELETE: checked(untyped.DELETE),
    raw,
    use: (...middleware) => raw.use(...middleware),
    async *paginate(url, ...init) {
      const first = (init[0] ?? {}) as { params?: { query?: Record<string, unknown> } };
      let cursor: string | null | undefined;
      do {
        const query = { ...first.params?.query, ...(cursor ? { cursor } : {}) };
        const page = (await (GET as unknown as Call)(url as string, { ...first, params: { ...first.params, query } }))
          .data as { data: unknown[]; pagination: { nextCursor: string | null } };
        for (const item of page.data) yield item as never;
        cursor = page.pagination.nextCursor;
      } while (cursor);
    },
  };
}

/**
 * One random Idempotency-Key per logical POST, set before the first attempt so every retry of
 * it (retryingFetch) sends the same key. A key the caller gave is kept.
 */
const idempotencyKeys: Middleware = {
  onRequest({ request }) {
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) {
      request.headers.set('Idempotency-Key', globalThis.crypto.randomUUID());
    }
    return request;
  },
};
