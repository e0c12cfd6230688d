import type { RequestHandler, Response } from 'express';
import onHeaders from 'on-headers';

/** What a credentialed answer carries: no cache, shared or private, may keep it. */
export const PRIVATE_CACHE_CONTROL = 'private, no-store';

/** The request headers an answer may depend on: the browser's origin (CORS) and the credentials. */
export const CREDENTIAL_VARY = ['Origin', 'Authorization', 'X-Api-Key'];

/**
 * Answers that must never be kept by a shared cache (docs/security.md, "Caching of credentialed
 * answers"), decided in one place, just before the status line is written, so no handler, filter
 * or pre-routing refusal can forget it:
 * - a request that carries a credential (`x-api-key`, or `Authorization`, which is how keys and
 *   site-user sessions travel), valid or not: every answer (2xx, 3xx, 304, problems) is
 *   `Cache-Control: private, no-store` with `Vary: Origin, Authorization, X-Api-Key`, whatever a
 *   handler set (the public read cache leaves keyed reads alone; this overrides the rest);
 * - an anonymous answer a handler marked `no-store` (the per-person newsletter pages and
 *   tracking, reached by a token): `private, no-store` too;
 * - an anonymous problem answer without a Cache-Control: `no-store` (a 404 or a 429 is not
 *   heuristically cacheable by a CDN). Anonymous public reads keep `public` (public-read-cache.ts).
 */
export function privateAnswers(): RequestHandler {
  return (req, res, next) => {
    const credentialed = req.headers['x-api-key'] !== undefined || req.headers.authorization !== undefined;
    onHeaders(res, function (this: Response) {
      const given = this.getHeader('Cache-Control');
      if (credentialed) {
        this.setHeader('Cache-Control', PRIVATE_CACHE_CONTROL);
        for (const field of CREDENTIAL_VARY) this.vary(field);
        return;
      }
      if (typeof given === 'string' && given.split(',').some((d) => d.trim().toLowerCase() === 'no-store'))
        this.setHeader('Cache-Control', PRIVATE_CACHE_CONTROL);
      else if (given === undefined && this.statusCode >= 400) this.setHeader('Cache-Control', 'no-store');
    });
    next();
  };
}
