import type { Request } from 'express';
import { METHODS } from 'node:http';

interface RouterLayer {
  route?: { methods?: Record<string, boolean> };
  match(path: string): boolean;
}

/**
 * The methods the app's routes have for this request's path (RFC 9110 §15.5.6: a 405 lists
 * them in `Allow`), HEAD with GET as Express answers it; empty when no route has the path.
 * Only asked for requests no route took, so the walk over the table costs nothing otherwise.
 */
export function allowedMethods(req: Request): string[] {
  const stack = (req.app as unknown as { router?: { stack?: RouterLayer[] } } | undefined)?.router?.stack ?? [];
  const path = (req.originalUrl ?? req.url).split('?', 1)[0];
  const methods = new Set<string>();
  for (const layer of stack) {
    const routeMethods = layer.route?.methods;
    // A route for every method (`app.all`, the stored files' handler) passes on what it does not serve.
    if (!routeMethods || routeMethods._all || Object.keys(routeMethods).length >= METHODS.length) continue;
    try {
      if (!layer.match(path)) continue;
    } catch {
      // A malformed percent-escape in the path: no route can be meant.
      return [];
    }
    for (const [method, on] of Object.entries(routeMethods)) if (on) methods.add(method.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
