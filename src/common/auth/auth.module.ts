import { Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { AccountModule } from '../../account/account.module';
import { ApiKeysModule } from '../../api-keys/api-keys.module';
import { CostBudgetGuard, CostBudgetInterceptor, CostsInFlight } from '../rate-limit/cost-budget.guard';
import { RateLimitAfterAuthGuard, RateLimitGuard } from '../rate-limit/rate-limit.guard';
import { RequestBodyGuard } from '../input/request-body';
import { AuthGuard } from './auth.guard';
import { CredentialsMiddleware } from './credentials.middleware';

/**
 * Credentials for every request (mounted in createApp) and the global guards, which run in the
 * order listed: the rate limit, auth, the rate limit of a credential that reads as anonymous,
 * the account's budget of an expensive route, then the body reader, so no body is read for a
 * caller the guards before it refuse.
 */
@Module({
  imports: [AccountModule, ApiKeysModule],
  providers: [
    // A blocked anonymous client is refused before any site lookup (rate-limit.guard.ts).
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_GUARD, useClass: RateLimitAfterAuthGuard },
    { provide: APP_GUARD, useClass: CostBudgetGuard },
    { provide: APP_GUARD, useClass: RequestBodyGuard },
    { provide: APP_INTERCEPTOR, useClass: CostBudgetInterceptor },
    CostsInFlight,
    CredentialsMiddleware,
  ],
  exports: [CredentialsMiddleware],
})
export class AuthModule {}
