import type { Request } from 'express';
import { routerRoutes } from '../internals/express-router';

/**
 * The methods the app's routes have for this request's path (RFC 9110 §15.5.6: a 405 lists
 * them in `Allow`), HEAD with GET as Express answers it; empty when no route has the path.
 * Only asked for requests no route took, so the walk over the table costs nothing otherwise.
 */
export function allowedMethods(req: Request): string[] {
  const path = (req.originalUrl ?? req.url).split('?', 1)[0];
  const methods = new Set<string>();
  for (const route of routerRoutes(req.app)) {
    const served = route.methods;
    // A route for every method (`app.all`, the stored files' handler) passes on what it does not serve.
    if (served === 'all') continue;
    try {
      if (!route.matches(path)) continue;
    } catch {
      // A malformed percent-escape in the path: no route can be meant.
      return [];
    }
    for (const method of served) methods.add(method);
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
