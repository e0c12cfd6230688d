import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccountModule } from '../../account/account.module';
import { ApiKeysModule } from '../../api-keys/api-keys.module';
import { PublicThrottlerGuard } from '../http/public-throttler.guard';
import { RequestBodyGuard } from '../input/request-body';
import { AuthGuard } from './auth.guard';
import { CredentialsMiddleware } from './credentials.middleware';

/**
 * Credentials for every request (mounted in createApp) and the global guards, which run in this
 * order: auth, the public rate limit, then the body reader, so no body is read for a caller the
 * first two refuse.
 */
@Module({
  imports: [AccountModule, ApiKeysModule],
  providers: [
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_GUARD, useClass: PublicThrottlerGuard },
    { provide: APP_GUARD, useClass: RequestBodyGuard },
    CredentialsMiddleware,
  ],
  exports: [CredentialsMiddleware],
})
export class AuthModule {}
