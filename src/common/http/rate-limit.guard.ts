import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AppConfig } from '../../config/app-config';
import { PUBLIC_ROUTE } from '../auth/decorators';
import { ANONYMOUS, AuthenticatedRequest } from '../auth/principal';
import { RouteFlagCache } from '../auth/route-flags';
import { TooManyRequestsProblem } from '../errors/problems';
import { RateDecision, RateLimitStore } from './rate-limit.store';

const SKIP_RATE_LIMIT = 'sitebase:skip-rate-limit';

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

/**
 * API.md §2: anonymous callers of public routes are limited per client IP and route
 * (RATE_LIMIT_PUBLIC_MAX); a valid key or session is never limited by IP, only by its own
 * counter when RATE_LIMIT_KEY_MAX is set (every route, per key or session). Runs after the
 * AuthGuard, so a key that cannot reach the site of a public route counts as anonymous, as it
 * reads. Synchronous while the store answers from memory.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly ttl: number;
  private readonly publicMax: number;
  private readonly keyMax: number;

  constructor(private readonly reflector: Reflector, private readonly store: RateLimitStore, config: AppConfig) {
    this.ttl = config.RATE_LIMIT_TTL_MS;
    this.publicMax = config.RATE_LIMIT_PUBLIC_MAX;
    this.keyMax = config.RATE_LIMIT_KEY_MAX;
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const route = ROUTES.get(this.reflector, context);
    if (route.skip) return true;
    const req = context.switchToHttp().getRequest<Request & AuthenticatedRequest>();
    const principal = req.principal ?? ANONYMOUS;
    let key: string;
    let limit: number;
    if (principal.kind === 'anonymous') {
      if (!route.anonymous) return true;
      key = `ip:${req.ip}:${route.name}`;
      limit = this.publicMax;
    } else {
      if (this.keyMax === 0) return true;
      key = principal.kind === 'key' ? `key:${principal.keyId}` : `session:${principal.sessionId}`;
      limit = this.keyMax;
    }
    const decision = this.store.hit(key, this.ttl, limit, this.ttl);
    return decision instanceof Promise ? decision.then(allow) : allow(decision);
  }
}

function allow(decision: RateDecision): true {
  if (decision.blocked) throw new TooManyRequestsProblem(decision.retryAfter);
  return true;
}
