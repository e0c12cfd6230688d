/** How a call is retried: network errors and 429/503 answers that carry Retry-After. */
export interface RetryOptions {
  /** Retries after the first attempt (0: none). Default 2. */
  retries: number;
  /** A Retry-After longer than this is not waited for: the 429/503 is answered. Default 10 000. */
  maxDelayMs: number;
  /** The wait before the n-th retry after a network error (n from 0). Default 250 ms doubling. */
  backoffMs: (attempt: number) => number;
}

export const DEFAULT_RETRY: RetryOptions = {
  retries: 2,
  maxDelayMs: 10_000,
  backoffMs: (attempt) => 250 * 2 ** attempt,
};

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * A fetch that retries one logical call. The request (with the Idempotency-Key the client gave
 * it) is cloned before each attempt, so every retry sends the same key and body: the server
 * replays what the first attempt did instead of doing it twice.
 *
 * - A network error is retried when repeating is safe: methods HTTP defines as idempotent, and
 *   POSTs that carry an Idempotency-Key. A PATCH is not retried after a network error.
 * - A 429 or 503 is retried when it says Retry-After (seconds or an HTTP date) no longer than
 *   `maxDelayMs`: the server refused it before doing anything.
 */
export function retryingFetch(
  base: (input: Request) => Promise<Response>,
  options: RetryOptions,
): (input: Request) => Promise<Response> {
  return async (request) => {
    const canRepeat =
      IDEMPOTENT_METHODS.has(request.method) || (request.method === 'POST' && request.headers.has('idempotency-key'));
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= options.retries;
      const sent = last ? request : request.clone();
      let response: Response;
      try {
        response = await base(sent);
      } catch (error) {
        if (last || !canRepeat) throw error;
        await sleep(options.backoffMs(attempt));
        continue;
      }
      if (!last && (response.status === 429 || response.status === 503)) {
        const wait = retryAfterMs(response.headers.get('retry-after'));
        if (wait !== undefined && wait <= options.maxDelayMs) {
          await response.body?.cancel();
          await sleep(wait);
          continue;
        }
      }
      return response;
    }
  };
}

/** Retry-After as milliseconds from now: delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
