import type { Request } from 'express';

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
    if (!layer.route?.methods) continue;
    try {
      if (!layer.match(path)) continue;
    } catch {
      // A malformed percent-escape in the path: no route can be meant.
      return [];
    }
    for (const [method, on] of Object.entries(layer.route.methods)) {
      if (on && method !== '_all') methods.add(method.toUpperCase());
    }
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
