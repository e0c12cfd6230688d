import { CallHandler, CanActivate, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { finalize, Observable } from 'rxjs';
import { AppConfig } from '../../config/app-config';
import { AuthenticatedRequest } from '../auth/principal';
import { RouteFlagCache } from '../auth/route-flags';
import { TooManyRequestsProblem } from '../errors/problems';
import { RateDecision, RateLimitStore } from './rate-limit.store';
import { budgetOf, ROUTE_COSTS, RouteCost } from './route-costs';
import { ROUTE_OPTIONS, RouteOptions } from './route.decorator';

const COSTS = new RouteFlagCache<RouteCost | null>(
  (reflector, targets) => reflector.getAllAndOverride<RouteOptions | undefined>(ROUTE_OPTIONS, targets)?.cost ?? null,
);

/** A request over an account's in-flight cap may try again in this many seconds. */
const BUSY_RETRY_AFTER = 1;

interface Held {
  /** Gives the request's slot back (once). */
  costRelease?: () => void;
  /** The handler runs: its end gives the slot back, not the connection's close. */
  costHandled?: boolean;
}

/**
 * The fair share of expensive routes (docs/foundation.md, "Fair share"): a route that declares
 * `@Route({ cost })` counts against its account's budget of that cost, whichever key or session
 * calls it, so an account that mints keys gets no more. Two budgets, each off at 0:
 * - requests a window (RATE_LIMIT_<COST>_MAX per RATE_LIMIT_TTL_MS), counted in the shared
 *   rate-limit store like a key's requests, so every instance sees them;
 * - requests in flight at once (RATE_LIMIT_<COST>_CONCURRENCY), per instance, in memory: a
 *   request beyond it is refused at once (Retry-After: 1) rather than queued, so a flood holds
 *   no memory or connection while it waits.
 * Runs after the AuthGuard (a refused credential spends nothing) and before the body is read.
 * Another account's budget is another counter: a flood by one never refuses the others.
 */
@Injectable()
export class CostBudgetGuard implements CanActivate {
  private readonly inFlight = new Map<string, number>();
  private readonly budgets: Record<RouteCost, { max: number; concurrency: number }>;
  private readonly ttl: number;

  constructor(
    private readonly reflector: Reflector,
    private readonly store: RateLimitStore,
    config: AppConfig,
  ) {
    this.ttl = config.RATE_LIMIT_TTL_MS;
    this.budgets = Object.fromEntries(
      (Object.keys(ROUTE_COSTS) as RouteCost[]).map((cost) => [cost, budgetOf(config, cost)]),
    ) as Record<RouteCost, { max: number; concurrency: number }>;
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const cost = COSTS.get(this.reflector, context);
    if (cost === null) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<Request & AuthenticatedRequest & Held>();
    const principal = req.principal;
    // Anonymous callers of a public route are limited by address (RateLimitGuard).
    if (!principal || principal.kind === 'anonymous') return true;
    const key = `acct:${principal.accountId}:${cost}`;
    const budget = this.budgets[cost];
    this.checkRoom(key, budget.concurrency);
    if (budget.max === 0) return this.hold(req, http.getResponse<Response>(), key, budget.concurrency);
    const decision = this.store.hit(key, this.ttl, budget.max, this.ttl);
    const admit = (d: RateDecision): true => {
      if (d.blocked) throw new TooManyRequestsProblem(d.retryAfter);
      return this.hold(req, http.getResponse<Response>(), key, budget.concurrency);
    };
    return decision instanceof Promise ? decision.then(admit) : admit(decision);
  }

  /** Requests of this cost in flight on this instance for the account `key` names (tests, metrics). */
  running(key: string): number {
    return this.inFlight.get(key) ?? 0;
  }

  private checkRoom(key: string, concurrency: number): void {
    if (concurrency > 0 && (this.inFlight.get(key) ?? 0) >= concurrency)
      throw new TooManyRequestsProblem(BUSY_RETRY_AFTER);
  }

  private hold(req: Request & Held, res: Response, key: string, concurrency: number): true {
    if (concurrency === 0) return true;
    // Checked again: a window count that went to the database may have let others in meanwhile.
    this.checkRoom(key, concurrency);
    this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    let held = true;
    req.costRelease = () => {
      if (!held) return;
      held = false;
      const left = (this.inFlight.get(key) ?? 1) - 1;
      if (left <= 0) this.inFlight.delete(key);
      else this.inFlight.set(key, left);
    };
    // Refused by a later guard (or the client left before the handler ran): free the slot then.
    res.once('close', () => {
      if (!req.costHandled) req.costRelease?.();
    });
    return true;
  }
}

/**
 * Frees a cost's slot when the handler is done rather than when the connection closes: a client
 * that hangs up does not end the work it started, so it does not get its slot back before then.
 */
@Injectable()
export class CostBudgetInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request & Held>();
    const release = req.costRelease;
    if (!release) return next.handle();
    req.costHandled = true;
    return next.handle().pipe(finalize(release));
  }
}
