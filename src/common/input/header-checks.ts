import type { NextFunction, Request, Response } from 'express';
import { Problem, ValidationProblem } from '../errors/problems';
import { hasBody } from './request-body';

/*
 * Checks of a request's headers and URL that cost nothing, made by middlewares on every path
 * before credentials are looked up (src/http-pipeline.ts).
 */

/**
 * Only `identity` bodies are accepted: the server inflates nothing (a lying `gzip` used to reach
 * zlib and answer 500). A header check, so it runs before credentials and costs nothing to
 * requests without a body.
 */
export function refuseContentEncoding(req: Request, _res: Response, next: NextFunction): void {
  const encoding = req.headers['content-encoding'];
  if (encoding === undefined || !hasBody(req) || /^\s*identity\s*$/i.test(encoding)) return next();
  next(
    new Problem({
      status: 415,
      code: 'unsupported_content_encoding',
      title: 'Unsupported content encoding',
      detail: 'Request bodies are accepted without a Content-Encoding (identity) only',
      headers: { 'Accept-Encoding': 'identity' },
    }),
  );
}

/**
 * Query strings must be UTF-8 percent-encoding: Node's parser read `%FF`, an encoded surrogate
 * (`%ED%A0%80`) or a stray `%` as U+FFFD and the route answered as if that had been sent. A
 * header-like check on the raw URL, before credentials, like the Content-Encoding one.
 */
export function refuseMalformedQuery(req: Request, _res: Response, next: NextFunction): void {
  const start = req.url.indexOf('?');
  if (start < 0) return next();
  for (const pair of req.url.slice(start + 1).split('&')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const decodedName = decodeQueryPart(name);
    if (decodedName === undefined || decodeQueryPart(eq < 0 ? '' : pair.slice(eq + 1)) === undefined) {
      return next(
        new ValidationProblem([{ path: decodedName ?? 'query', message: 'must be UTF-8 text, percent-encoded' }]),
      );
    }
  }
  next();
}

function decodeQueryPart(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
