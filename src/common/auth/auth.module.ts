import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccountModule } from '../../account/account.module';
import { ApiKeysModule } from '../../api-keys/api-keys.module';
import { RateLimitGuard } from '../http/rate-limit.guard';
import { AuthGuard } from './auth.guard';
import { CredentialsMiddleware } from './credentials.middleware';

/** Credentials for every request (mounted in createApp), one global guard (auth) and the public rate limit. */
@Module({
  imports: [AccountModule, ApiKeysModule],
  providers: [
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    CredentialsMiddleware,
  ],
  exports: [CredentialsMiddleware],
})
export class AuthModule {}
