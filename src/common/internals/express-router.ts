import { METHODS } from 'node:http';
import type { Fence } from './fence';

/*
 * The routes of the app's Express router, as Express tries them: what a 405 lists in `Allow`
 * (http/allowed-methods.ts) and the route template of a request answered before routing
 * (http/route-template.ts, for metrics and logs). Express 5 documents `app.router` but not what
 * it holds: its `stack` of layers, a layer's `match()`, a route's `methods` and
 * `_handlesMethod()` are the router package's internals, read only here. The table is Express's
 * own (Nest's routes and the few the app registers itself, Swagger UI's among them), so nothing
 * has to be kept beside it. Reads, not a fast path: there is no plain path that answers the same,
 * so another version logs one warning at boot (checkReadFences), fence.spec.ts fails on the
 * upgrade, and the tests of 405s and of route labels (test/foundation/answers, health-docs,
 * metrics, logging) and express-router.spec.ts exercise it.
 */
export const EXPRESS_ROUTER: Fence = {
  name: "The reads of Express's route table (src/common/internals/express-router.ts)",
  kind: 'reads',
  writtenFor: { express: '5.3.0', router: '2.3.0' },
};

interface RouterLayer {
  route?: { path: unknown; methods: Record<string, boolean>; _handlesMethod(method: string): boolean };
  match(path: string): unknown;
}

/** One route of the app's router (a verb's handler on a path, `app.all`'s on every verb). */
export interface RouterRoute {
  /** As registered: `/api/v2/sites/:siteName/content/:id` (not a string for a RegExp route). */
  path: unknown;
  /** The verbs it serves, upper case; `all` for a route of every verb (`app.all`). */
  methods: readonly string[] | 'all';
  /** Whether `path` is one of its paths; throws on a malformed percent-escape in a parameter. */
  matches(path: string): boolean;
  /** Whether it serves `method` (upper case), HEAD by its GET as Express does. */
  handles(method: string): boolean;
}

const views = new WeakMap<RouterLayer, RouterRoute>();

/** The routes of `app` (an Express application) in the order Express tries them. */
export function* routerRoutes(app: unknown): Generator<RouterRoute> {
  const stack = (app as { router?: { stack?: RouterLayer[] } } | undefined)?.router?.stack ?? [];
  for (const layer of stack) {
    if (!layer.route) continue;
    let view = views.get(layer);
    if (!view) views.set(layer, (view = new RouteView(layer, layer.route)));
    yield view;
  }
}

class RouteView implements RouterRoute {
  constructor(
    private readonly layer: RouterLayer,
    private readonly route: NonNullable<RouterLayer['route']>,
  ) {}

  get path(): unknown {
    return this.route.path;
  }

  /** Read each time: a route may gain verbs after it is first seen (`app.route(p).get().post()`). */
  get methods(): readonly string[] | 'all' {
    const own = Object.entries(this.route.methods);
    // Express 5's `app.all` registers every verb one by one; the router's own `all` is `_all`.
    if (this.route.methods._all || own.length >= METHODS.length) return 'all';
    return own.filter(([, on]) => on).map(([method]) => method.toUpperCase());
  }

  matches(path: string): boolean {
    return Boolean(this.layer.match(path));
  }

  handles(method: string): boolean {
    return this.route._handlesMethod(method);
  }
}
