import type { Request } from 'express';
import { routerRoutes } from '../internals/express-router';

/** The label of a request that no route matches (404s, probes): never the raw path. */
export const UNMATCHED = 'unmatched';

const TEMPLATE = Symbol('routeTemplate');

/**
 * The route template a request was for (`/api/v2/sites/:siteName/content/:id`), never the raw
 * path, so metrics labels and log fields stay bounded whatever clients send. A routed request
 * carries its route; one answered before routing (a bad key's 401, a blocked client's 429, a
 * 415) is matched against the app's routes here, and files served under a prefix (stored media,
 * Swagger UI) are labelled by the prefix. Anything else is `unmatched`.
 */
export class RouteTemplates {
  constructor(private readonly prefixes: readonly string[]) {}

  of(req: Request): string {
    const cached = (req as unknown as Record<symbol, string | undefined>)[TEMPLATE];
    if (cached !== undefined) return cached;
    const template = this.resolve(req);
    (req as unknown as Record<symbol, string>)[TEMPLATE] = template;
    return template;
  }

  private resolve(req: Request): string {
    const routed = (req.route as { path?: unknown } | undefined)?.path;
    if (typeof routed === 'string') return routed;
    const path = (req.originalUrl ?? req.url).split('?', 1)[0];
    for (const prefix of this.prefixes) {
      if (path === prefix || path.startsWith(`${prefix}/`)) return `${prefix}/*`;
    }
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    for (const route of routerRoutes(req.app)) {
      if (typeof route.path !== 'string') continue;
      try {
        if (route.matches(path) && route.handles(method)) return route.path;
      } catch {
        // A malformed percent-escape in the path: no route can be meant.
        return UNMATCHED;
      }
    }
    return UNMATCHED;
  }
}
