import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { ServerConfig } from '../../config/server.config';
import { trimTrailing } from '../input/trim-trailing';

/**
 * The one place absolute URLs come from: `Location` headers, media links, and the
 * confirmation, unsubscribe and tracking links modules put in mail. The base is the site's own
 * base URL when it has one, else PUBLIC_BASE_URL, whose default follows PORT.
 */
@Injectable()
export class PublicUrls {
  readonly base: string;

  constructor(config: ServerConfig) {
    this.base = trimTrailing(config.PUBLIC_BASE_URL, '/');
  }

  /** `path` (absolute, from the server's root) as a URL a client or a mail reader can open. */
  absolute(path: string, siteBase?: string | null): string {
    const base = siteBase ? trimTrailing(siteBase, '/') : this.base;
    return `${base}${path.startsWith('/') ? path : `/${path}`}`;
  }
}

/** Where createApp leaves the PublicUrls for `created()` (Express app.locals). */
export const PUBLIC_URLS_LOCAL = 'sitebasePublicUrls';

/**
 * A create's `Location` header: the new resource's absolute URL, from its path, or
 * an absolute URL as it is (v1 media answers the stored file's public link).
 */
export function created(res: Response, pathOrUrl: string): void {
  const urls = res.app.locals[PUBLIC_URLS_LOCAL] as PublicUrls | undefined;
  res.location(urls && !/^https?:\/\//.test(pathOrUrl) ? urls.absolute(pathOrUrl) : pathOrUrl);
}
