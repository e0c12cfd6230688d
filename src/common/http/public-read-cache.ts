import type { Express, Request, Response } from 'express';
import { crc32 } from 'node:zlib';

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
 * body ETag (or the item's own version ETag when it has one), `Cache-Control: public` and `Vary` on the credentials, and a `304` with no body to
 * an `If-None-Match` that names the current ETag: a site's front end or a CDN revalidates for
 * the price of a CRC. Reads with a key or a session (drafts, private data) are left alone, as is
 * a route that set its own Cache-Control (the newsletter's pages: `no-store`).
 */
export function installPublicReadCaching(app: Express, maxAgeSeconds: number): void {
  const cacheControl = maxAgeSeconds > 0 ? `public, max-age=${maxAgeSeconds}` : 'public, no-cache';
  const proto = app.response as Response;
  const json = proto.json;
  proto.json = function (this: Response, body: unknown): Response {
    const req = this.req as Request & PublicReadFlag;
    if (!req.publicRead || this.statusCode !== 200 || this.hasHeader('Cache-Control')) return json.call(this, body);
    const text = JSON.stringify(body);
    // An item's own version ETag (content) stays: it changes with every edit.
    const own = this.getHeader('ETag');
    const etag = typeof own === 'string' ? own : bodyEtag(text);
    this.setHeader('ETag', etag);
    this.setHeader('Cache-Control', cacheControl);
    this.vary('Authorization').vary('X-Api-Key');
    if (noneMatch(req.headers['if-none-match'], etag)) return this.status(304).end();
    if (!this.hasHeader('Content-Type')) this.setHeader('Content-Type', 'application/json; charset=utf-8');
    return this.send(text);
  };
}
