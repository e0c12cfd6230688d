import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import { PUBLIC_ROUTE } from '../auth/decorators';
import { TooManyRequestsProblem } from '../errors/problems';

/**
 * Rate limits the public (anonymous-capable) routes per client IP: subscribe, OTP, contact
 * forms, tracking, public reads. Authenticated traffic is bounded by its key, not by this.
 */
@Injectable()
export class PublicThrottlerGuard extends ThrottlerGuard {
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const isPublic = this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [context.getHandler(), context.getClass()]);
    return isPublic !== true;
  }

  protected override async throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    throw new TooManyRequestsProblem(Math.max(1, detail.timeToBlockExpire));
  }
}
