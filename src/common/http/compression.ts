import compression from 'compression';
import type { RequestHandler } from 'express';

/**
 * Answers leave compressed when the client asks (`Accept-Encoding`: br or gzip, negotiated by the
 * `compression` package): JSON and the OpenAPI document shrink by about ten times, Swagger UI's
 * page and bundle by four. Text types only (the package's `compressible` filter), and from 1 KB
 * (smaller answers gain less than the encoding costs). Untouched:
 *
 * - stored files at MEDIA_PUBLIC_PATH: they are served as stored, with `Range` and a
 *   `Content-Length` that a 206's `Content-Range` describes; images do not shrink anyway;
 * - ETags: they name an item's version (`If-Match` compares them strongly), not the bytes sent,
 *   so both encodings carry the same one, and `If-None-Match` still answers 304 (no body).
 *
 * `Vary: Accept-Encoding` tells caches the two encodings apart.
 */
export function compressAnswers(mediaPublicPath: string): RequestHandler {
  const files = `${mediaPublicPath}/`;
  return compression({
    filter: (req, res) => !req.url.startsWith(files) && compression.filter(req, res),
  });
}
