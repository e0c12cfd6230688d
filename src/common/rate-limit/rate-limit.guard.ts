import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { LimitsConfig } from '../../config/limits.config';
import { PUBLIC_ROUTE } from '../auth/decorators';
import { ANONYMOUS, AuthenticatedRequest, Principal } from '../auth/principal';
import { RouteFlagCache } from '../auth/route-flags';
import { TooManyRequestsProblem } from '../errors/problems';
import { BlockedClients } from './blocked-clients';
import { RateDecision, RateLimitStore } from './rate-limit.store';

export const SKIP_RATE_LIMIT = 'sitebase:skip-rate-limit';

/** A publishable key's limit is per minute (its `rateLimitPerMinute`). */
const MINUTE_MS = 60_000;

/** Never rate limited (health probes). */
export const SkipRateLimit = () => SetMetadata(SKIP_RATE_LIMIT, true);

interface RouteLimit {
  /** Anonymous callers are limited here (a public route not marked @SkipRateLimit()). */
  anonymous: boolean;
  skip: boolean;
  /** The route's part of an anonymous counter's key. */
  name: string;
}

const ROUTES = new RouteFlagCache<RouteLimit>((reflector, [handler, cls]) => {
  const skip = reflector.getAllAndOverride<boolean>(SKIP_RATE_LIMIT, [handler, cls]) === true;
  return {
    anonymous: !skip && reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [handler, cls]) === true,
    skip,
    name: `${cls.name}.${handler.name}`,
  };
});

interface Counted {
  rateLimitCounted?: boolean;
}

/**
 * API.md §2: anonymous callers of public routes are limited per client IP and route
 * (RATE_LIMIT_PUBLIC_MAX); a valid key or session is never limited by IP, only by its own
 * counter on every route (RATE_LIMIT_KEY_MAX per key, RATE_LIMIT_SESSION_MAX per session; 0:
 * none). A publishable key counts against its own per-minute limit and, on public routes, its
 * caller's address as well; spent, it reads as no key there. Expensive routes also count against their account's budget (CostBudgetGuard).
 * Synchronous while the store answers from memory.
 *
 * Runs before the AuthGuard, so a blocked anonymous client is refused before any site lookup:
 * refusing must cost less than serving. A key presented on a public route of a site it cannot
 * reach reads as anonymous there; RateLimitAfterAuthGuard counts that request by IP once the
 * AuthGuard has decided so.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly ttl: number;
  private readonly publicMax: number;
  private readonly keyMax: number;
  private readonly sessionMax: number;

  constructor(
    protected readonly reflector: Reflector,
    private readonly store: RateLimitStore,
    private readonly blocked: BlockedClients,
    config: LimitsConfig,
  ) {
    this.ttl = config.RATE_LIMIT_TTL_MS;
    this.publicMax = config.RATE_LIMIT_PUBLIC_MAX;
    this.keyMax = config.RATE_LIMIT_KEY_MAX;
    this.sessionMax = config.RATE_LIMIT_SESSION_MAX;
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const route = ROUTES.get(this.reflector, context);
    if (route.skip) return true;
    const req = context.switchToHttp().getRequest<Request & AuthenticatedRequest & Counted>();
    return this.count(req, route, req.principal ?? ANONYMOUS);
  }

  protected count(
    req: Request & AuthenticatedRequest & Counted,
    route: RouteLimit,
    principal: Principal,
  ): boolean | Promise<boolean> {
    if (principal.kind === 'publishable') {
      // Anyone may hold a publishable key: it never frees a client from its address's limit,
      // and every holder shares the key's own (docs/foundation.md, "Publishable keys").
      const byAddress = route.anonymous ? this.count(req, route, ANONYMOUS) : true;
      const key = `pub:${principal.keyId}`;
      const spent = (d: RateDecision): true => {
        // Spent on a public route, the key reads as no key (its caller was counted by address
        // above): a flood through a copied key cannot deny the site's readers what anyone may
        // read without one. Where only the key admits (media), it is a 429.
        if (!d.blocked || !route.anonymous) return this.allow(d, req, key, false);
        req.principal = ANONYMOUS;
        return true;
      };
      const byKey = () => {
        const d = this.store.hit(key, MINUTE_MS, principal.rateLimitPerMinute, MINUTE_MS);
        return d instanceof Promise ? d.then(spent) : spent(d);
      };
      return byAddress instanceof Promise ? byAddress.then(byKey) : byKey();
    }
    let key: string;
    let limit: number;
    if (principal.kind === 'anonymous') {
      if (!route.anonymous) return true;
      key = `ip:${req.ip}:${route.name}`;
      limit = this.publicMax;
      req.rateLimitCounted = true;
    } else if (principal.kind === 'key') {
      if (this.keyMax === 0) return true;
      key = `key:${principal.keyId}`;
      limit = this.keyMax;
    } else {
      if (this.sessionMax === 0) return true;
      key = `session:${principal.sessionId}`;
      limit = this.sessionMax;
    }
    const decision = this.store.hit(key, this.ttl, limit, this.ttl);
    const anonymous = principal.kind === 'anonymous';
    return decision instanceof Promise
      ? decision.then((d) => this.allow(d, req, key, anonymous))
      : this.allow(decision, req, key, anonymous);
  }

  private allow(d: RateDecision, req: Request, key: string, anonymous: boolean): true {
    if (!d.blocked) return true;
    // The next requests of this anonymous client are refused before routing.
    if (anonymous) this.blocked.block(req, key, d.until);
    throw new TooManyRequestsProblem(d.retryAfter);
  }
}

/** After the AuthGuard: a credential that reads as anonymous on this public route counts by IP. */
@Injectable()
export class RateLimitAfterAuthGuard extends RateLimitGuard {
  override canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request & AuthenticatedRequest & Counted>();
    if (req.principal !== ANONYMOUS || req.rateLimitCounted) return true;
    const route = ROUTES.get(this.reflector, context);
    return route.skip ? true : this.count(req, route, ANONYMOUS);
  }
}
