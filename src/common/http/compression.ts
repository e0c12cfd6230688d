import compression from 'compression';
import type { RequestHandler, Response } from 'express';

/**
 * Answers leave compressed when the client asks (`Accept-Encoding`: br or gzip, negotiated by the
 * `compression` package): JSON and the OpenAPI document shrink by five to thirty times, Swagger
 * UI's page and bundle by four. Text types only (the package's `compressible` filter), and from
 * 1 KB (smaller answers gain less than the encoding costs). Untouched:
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
  const compress = compression({
    filter: (req, res) =>
      !req.url.startsWith(files) && !tooLargeToCompressEachTime(res) && compression.filter(req, res),
  });
  return (req, res, next) => compress(req, res, () => (keepLength(res), next()));
}

/**
 * Compressing costs CPU per byte on every request: an answer over this is sent as it is (the
 * document and Swagger UI's files are compressed once and kept: docs-assets.ts), so no request
 * a stranger can repeat costs more than a few milliseconds of compression.
 */
const MAX_COMPRESSED_EACH_TIME = 256 * 1024;

function tooLargeToCompressEachTime(res: { getHeader(name: string): unknown }): boolean {
  const length = Number(res.getHeader('Content-Length'));
  return Number.isFinite(length) && length > MAX_COMPRESSED_EACH_TIME;
}

/**
 * The package writes the head before the body even when it does not compress, so Node can no
 * longer count a body given whole to `end()` (an empty 200 would go out chunked, without
 * `Content-Length: 0`): the length is set here first; the package removes it when it compresses.
 */
function keepLength(res: Response): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    const [chunk, encoding] = args;
    // A 204, a 304 and a HEAD's answer carry no body: Node leaves their length alone, and so does this.
    const bodiless = res.statusCode === 204 || res.statusCode === 304 || res.req.method === 'HEAD';
    if (!res.headersSent && !bodiless && !res.hasHeader('Content-Length') && typeof chunk !== 'function') {
      const length =
        chunk === undefined || chunk === null
          ? 0
          : typeof chunk === 'string'
            ? Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
            : (chunk as Uint8Array).byteLength;
      res.setHeader('Content-Length', length);
    }
    return end(...args);
  }) as Response['end'];
}
