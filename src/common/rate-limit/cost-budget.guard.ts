import { CallHandler, CanActivate, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { finalize, Observable } from 'rxjs';
import { LimitsConfig } from '../../config/limits.config';
import { AuthenticatedRequest } from '../auth/principal';
import { RouteFlagCache } from '../auth/route-flags';
import { TooManyRequestsProblem } from '../errors/problems';
import { RateDecision, RateLimitStore } from './rate-limit.store';
import { budgetOf, ROUTE_COSTS, RouteCost } from './route-costs';
import { ROUTE_OPTIONS, RouteOptions } from '../http/route.decorator';

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
 * Requests of each (account, cost) in flight on this instance. A provider of its own, so the
 * guard, which counts, and whoever reads the figures (tests) share it.
 */
@Injectable()
export class CostsInFlight {
  private readonly counts = new Map<string, number>();

  running(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  /** Takes a slot when fewer than `cap` are taken; answers how to give it back (once), or null. */
  take(key: string, cap: number): (() => void) | null {
    const now = this.running(key);
    if (now >= cap) return null;
    this.counts.set(key, now + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = this.running(key) - 1;
      if (left <= 0) this.counts.delete(key);
      else this.counts.set(key, left);
    };
  }
}

/**
 * The fair share of expensive routes (docs/foundation.md, "Fair share"): a route that declares
 * `@Route({ cost })` counts against its account's budget of that cost, whichever key or session
 * calls it, so an account that mints keys gets no more. Two budgets, each off at 0:
 * - requests a window (RATE_LIMIT_<COST>_MAX per RATE_LIMIT_TTL_MS), counted in the shared
 *   rate-limit store like a key's requests, so every instance sees them;
 * - requests in flight at once (RATE_LIMIT_<COST>_CONCURRENCY), per instance, in memory: a
 *   request beyond it is refused at once (Retry-After: 1) rather than queued, so a flood holds
 *   no memory or connection while it waits; it is checked first, so it costs no window count.
 * Runs after the AuthGuard (a refused credential spends nothing) and before the body is read.
 * Another account's budget is another counter: a flood by one never refuses the others.
 */
@Injectable()
export class CostBudgetGuard implements CanActivate {
  private readonly budgets: Record<RouteCost, { max: number; concurrency: number }>;
  private readonly ttl: number;

  constructor(
    private readonly reflector: Reflector,
    private readonly store: RateLimitStore,
    private readonly inFlight: CostsInFlight,
    config: LimitsConfig,
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
    // Anonymous callers of a public route are limited by address (RateLimitGuard), and so are
    // a publishable key's, which anyone may hold: it must not spend its account's budget.
    if (!principal || principal.kind === 'anonymous' || principal.kind === 'publishable') return true;
    const key = `acct:${principal.accountId}:${cost}`;
    const budget = this.budgets[cost];
    // The slot first, synchronously: a request over the cap is refused before it is counted in
    // the window, and requests waiting on the window's database count cannot overtake the cap.
    const release = budget.concurrency > 0 ? this.inFlight.take(key, budget.concurrency) : null;
    if (budget.concurrency > 0 && !release) throw new TooManyRequestsProblem(BUSY_RETRY_AFTER);
    const res = http.getResponse<Response>();
    if (budget.max === 0) return this.hold(req, res, release);
    let decision: RateDecision | Promise<RateDecision>;
    try {
      decision = this.store.hit(key, this.ttl, budget.max, this.ttl);
    } catch (err) {
      release?.();
      throw err;
    }
    const admit = (d: RateDecision): true => {
      if (d.blocked) {
        release?.();
        throw new TooManyRequestsProblem(d.retryAfter);
      }
      return this.hold(req, res, release);
    };
    return decision instanceof Promise
      ? decision.then(admit, (err: unknown) => {
          release?.();
          throw err;
        })
      : admit(decision);
  }

  private hold(req: Request & Held, res: Response, release: (() => void) | null): true {
    if (!release) return true;
    // Gone while the window was counted: its 'close' has passed, so nothing would give the slot back.
    if (req.socket.destroyed) {
      release();
      throw new TooManyRequestsProblem(BUSY_RETRY_AFTER);
    }
    req.costRelease = release;
    // Refused by a later guard (or the client left before the handler ran): free the slot then.
    res.once('close', () => {
      if (!req.costHandled) release();
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
