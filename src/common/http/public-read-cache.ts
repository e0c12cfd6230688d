import { CallHandler, ExecutionContext, Injectable, NestInterceptor, StreamableFile } from '@nestjs/common';
import type { Request, Response } from 'express';
import { crc32 } from 'node:zlib';
import { map, Observable } from 'rxjs';
import { HttpConfig } from '../../config/http.config';

/** Set by the AuthGuard on an anonymous GET of a public route of a site. */
export interface PublicReadFlag {
  publicRead?: boolean;
}

/** A weak validator of a body: its length and CRC-32 (cheap enough for every public read). */
export function bodyEtag(body: string): string {
  return `W/"${Buffer.byteLength(body).toString(16)}-${(crc32(body) >>> 0).toString(16)}"`;
}

/** True when `If-None-Match` names this ETag (weak comparison, RFC 9110 §13.1.2), or `*`. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = (t: string) => t.trim().replace(/^W\//, '');
  const want = opaque(etag);
  return header.split(',').some((t) => t.trim() === '*' || opaque(t) === want);
}

/**
 * Anonymous reads of a site's published data (docs/performance.md, "Public reads") answer with a
 * body ETag (or the item's own version ETag when it has one), `Cache-Control: public` and `Vary`
 * on the credentials, and a `304` with no body to an `If-None-Match` that names the current ETag:
 * a site's front end or a CDN revalidates for the price of a CRC. Reads with a key or a session
 * (drafts, private data) are left alone, as is a route that set its own Cache-Control (the
 * newsletter's pages: `no-store`), another status, and what Express would not send as JSON (a
 * stream, a string). The body is serialised once, here, and sent as the text it was.
 */
@Injectable()
export class PublicReadCacheInterceptor implements NestInterceptor {
  private readonly cacheControl: string;

  constructor(config: HttpConfig) {
    const maxAge = config.PUBLIC_CACHE_MAX_AGE_SECONDS;
    this.cacheControl = maxAge > 0 ? `public, max-age=${maxAge}` : 'public, no-cache';
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request & PublicReadFlag>();
    if (!req.publicRead) return next.handle();
    const res = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(map((body: unknown) => this.answer(req, res, body)));
  }

  private answer(req: Request, res: Response, body: unknown): unknown {
    if (body === null || typeof body !== 'object' || body instanceof StreamableFile) return body;
    // Nest set the route's status before the handler ran; the handler may have set another.
    if (res.statusCode !== 200 || res.hasHeader('Cache-Control')) return body;
    const text = JSON.stringify(body);
    // An item's own version ETag (content) stays: it changes with every edit.
    const own = res.getHeader('ETag');
    const etag = typeof own === 'string' ? own : bodyEtag(text);
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', this.cacheControl);
    res.vary('Authorization').vary('X-Api-Key');
    if (noneMatch(req.headers['if-none-match'], etag)) {
      // Nest sends nothing for undefined, with the status set here (it set its own before).
      res.status(304);
      return undefined;
    }
    if (!res.hasHeader('Content-Type')) res.setHeader('Content-Type', 'application/json; charset=utf-8');
    return text;
  }
}
