import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccountModule } from '../../account/account.module';
import { ApiKeysModule } from '../../api-keys/api-keys.module';
import { RateLimitAfterAuthGuard, RateLimitGuard } from '../http/rate-limit.guard';
import { AuthGuard } from './auth.guard';
import { CredentialsMiddleware } from './credentials.middleware';

/** Credentials for every request (mounted in createApp), one global guard (auth) and the public rate limit. */
@Module({
  imports: [AccountModule, ApiKeysModule],
  providers: [
    // In this order: refuse a blocked anonymous client before any site lookup, then auth, then
    // count a credential that reads as anonymous on a public route (rate-limit.guard.ts).
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_GUARD, useClass: RateLimitAfterAuthGuard },
    CredentialsMiddleware,
  ],
  exports: [CredentialsMiddleware],
})
export class AuthModule {}
