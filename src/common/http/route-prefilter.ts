/**
 * A cheap first test in front of each route's path matcher (docs/performance.md, "Routing").
 *
 * Express's router tries its layers in order, and a route layer tests the request path with a
 * regular expression made by path-to-regexp: a request for a route near the end of the table
 * ran the expressions of the ~190 routes before it. A profile of `POST …/newsletter/track/open`
 * (layer 192) put that walk at 17 % of the server's CPU.
 *
 * For a route path made only of literal segments and whole-segment `:params`
 * (`/api/v2/sites/:siteName/content/:id`), a path whose number of segments differs, or whose
 * segment at a literal's place is another word, cannot match: this answers `false` for it
 * without the expression. Anything else (the same shape) goes to the route's own matcher,
 * which alone decides a match, its parameters and their decoding. So the prefilter only ever
 * skips paths the matcher would refuse: literals are compared without case (Express matches
 * without case unless told otherwise), and one trailing slash is ignored (non-strict routing).
 * Paths with wildcards, optional groups, several params in a segment or arrays of paths keep
 * their matcher alone.
 */

/** What this module reads and replaces on a router layer (router v2's `Layer`). */
interface RouteLayer {
  route?: unknown;
  rawPath?: unknown;
  match: (path: string) => unknown;
  /** The layer's own matcher, kept for tests that compare the two. */
  unfilteredMatch?: (path: string) => unknown;
}

interface Shape {
  segments: number;
  /** [index, lower-cased literal] of each literal segment. */
  literals: Array<[number, string]>;
}

const PARAM = /^:[A-Za-z_$][\w$]*$/;
/** path-to-regexp syntax beyond `:name` (wildcards, groups, escapes) or a param inside a segment. */
const SPECIAL = /[*{}()?+\\:]/;

/** The shape of a route path, or null when it needs its own matcher for everything. */
export function routeShape(path: unknown): Shape | null {
  if (typeof path !== 'string' || !path.startsWith('/')) return null;
  const parts = trimmed(path.split('/'));
  const literals: Array<[number, string]> = [];
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i];
    if (PARAM.test(part)) continue;
    if (part === '' || SPECIAL.test(part)) return null;
    literals.push([i, part.toLowerCase()]);
  }
  return { segments: parts.length, literals };
}

/** `/a/b/` has the segments of `/a/b`: one trailing slash is allowed (non-strict routing). */
function trimmed(parts: string[]): string[] {
  return parts.length > 2 && parts[parts.length - 1] === '' ? parts.slice(0, -1) : parts;
}

/** `trimmed(path.split('/')).length`, without the array. */
export function segmentCount(path: string): number {
  let n = 1;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 0x2f) n += 1;
  return n > 2 && path.charCodeAt(path.length - 1) === 0x2f ? n - 1 : n;
}

/** The segments of the path being routed: every layer tests the same path, so it is split once. */
let lastPath = '';
let lastParts: string[] = [''];

function segmentsOf(path: string): string[] {
  if (path !== lastPath) {
    lastParts = trimmed(path.split('/'));
    lastPath = path;
  }
  return lastParts;
}

/** Whether `path` can have `shape` (false: the route's matcher would refuse it). */
export function mayMatch(shape: Shape, path: string): boolean {
  const parts = segmentsOf(path);
  if (parts.length !== shape.segments) return false;
  for (const [i, literal] of shape.literals) {
    const part = parts[i];
    if (part.length !== literal.length || part.toLowerCase() !== literal) return false;
  }
  return true;
}

/**
 * Puts the prefilter in front of every route layer of an Express router stack whose path it
 * understands; answers how many it covered and the paths it left to their own matcher.
 */
export function prefilterRoutes(stack: unknown[]): { covered: number; left: string[] } {
  let covered = 0;
  const left: string[] = [];
  for (const entry of stack) {
    const layer = entry as RouteLayer;
    if (!layer.route || layer.unfilteredMatch) continue;
    const shape = routeShape(layer.rawPath);
    if (!shape) {
      left.push(String(layer.rawPath));
      continue;
    }
    const own = layer.match.bind(layer);
    layer.unfilteredMatch = own;
    layer.match = (path: string) => (typeof path === 'string' && !mayMatch(shape, path) ? false : own(path));
    covered += 1;
  }
  return { covered, left };
}

/** What `routeBySegmentCount` reads and replaces on Express's router (router v2). */
export interface RoutingTable {
  stack: unknown[];
  handle: (this: RoutingTable, req: { url?: unknown }, res: unknown, done: unknown) => unknown;
}

/**
 * The pathname the router will route `url` by, when parseurl takes its fast path for it (a
 * path starting with `/`, no whitespace or `#` anywhere): the part before `?`. Null otherwise
 * (absolute-form targets and the like), and the request walks the whole table.
 */
export function routedPath(url: string): string | null {
  if (url.charCodeAt(0) !== 0x2f) return null;
  let end = -1;
  for (let i = 1; i < url.length; i++) {
    switch (url.charCodeAt(i)) {
      case 0x3f:
        if (end < 0) end = i;
        break;
      case 0x09:
      case 0x0a:
      case 0x0c:
      case 0x0d:
      case 0x20:
      case 0x23:
      case 0xa0:
      case 0xfeff:
        return null;
    }
  }
  return end < 0 ? url : url.slice(0, end);
}

/**
 * The second step after `prefilterRoutes`: even refused by the segment test, each route layer
 * still costs the router a turn of its loop, and a tracking request walked ~190 of them. A route
 * layer whose shape has another number of segments than the request path can never match it, so
 * each request is routed over the table without those layers: the same layers in the same order,
 * less the ones that would have answered `false`. Middleware, routes the prefilter does not
 * understand, and requests whose path parseurl would parse the slow way keep the whole table.
 * The tables are rebuilt when the router's stack changes. Relies on what router v2 does: it reads
 * `this.stack` once, when it starts routing a request, and no middleware here rewrites `req.url`.
 */
export function routeBySegmentCount(router: RoutingTable): void {
  const handle = router.handle;
  let source: unknown[] | null = null;
  let sourceLength = -1;
  let byCount = new Map<number, unknown[]>();
  let unshaped: unknown[] = [];
  const build = (stack: unknown[]) => {
    const shapes = stack.map((entry) => {
      const layer = entry as RouteLayer;
      return layer.route && layer.unfilteredMatch ? routeShape(layer.rawPath) : null;
    });
    const counts = new Set(shapes.flatMap((shape) => (shape ? [shape.segments] : [])));
    byCount = new Map(
      [...counts].map((n) => [n, stack.filter((_, i) => !shapes[i] || shapes[i].segments === n)] as const),
    );
    unshaped = stack.filter((_, i) => !shapes[i]);
    source = stack;
    sourceLength = stack.length;
  };
  router.handle = function (req, res, done) {
    const full = this.stack;
    const path = typeof req.url === 'string' ? routedPath(req.url) : null;
    if (path === null) return handle.call(this, req, res, done);
    if (full !== source || full.length !== sourceLength) build(full);
    this.stack = byCount.get(segmentCount(path)) ?? unshaped;
    try {
      return handle.call(this, req, res, done);
    } finally {
      this.stack = full;
    }
  };
}
