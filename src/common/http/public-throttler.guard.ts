import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import { THROTTLER_SKIP } from '@nestjs/throttler/dist/throttler.constants';
import { PUBLIC_ROUTE } from '../auth/decorators';
import { RouteFlagCache } from '../auth/route-flags';

/** Public routes not marked @SkipThrottle(). */
const LIMITED = new RouteFlagCache<boolean>((reflector, targets) =>
  reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets) === true
  && reflector.getAllAndOverride<boolean>(`${THROTTLER_SKIP}default`, targets) !== true);
import { TooManyRequestsProblem } from '../errors/problems';

/**
 * Rate limits the public (anonymous-capable) routes per client IP: subscribe, OTP, contact
 * forms, tracking, public reads. Authenticated traffic is bounded by its key, not by this.
 */
@Injectable()
export class PublicThrottlerGuard extends ThrottlerGuard {
  /**
   * Synchronous `true` for routes it does not count, so they pay nothing for it. Nest accepts a
   * boolean from any guard; the base class only types its own async answer.
   */
  override canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http' || !LIMITED.get(this.reflector, context)) return true as unknown as Promise<boolean>;
    return super.canActivate(context);
  }

  protected override async throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    throw new TooManyRequestsProblem(Math.max(1, detail.timeToBlockExpire));
  }
}
