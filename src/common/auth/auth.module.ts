import { Module } from '@nestjs/common';
import { AccountModule } from '../../account/account.module';
import { ApiKeysModule } from '../../api-keys/api-keys.module';
import { CredentialsMiddleware } from './credentials.middleware';

/**
 * Credentials for every request (mounted in src/http-pipeline.ts, where the AuthGuard and the
 * other global guards are registered in their order).
 */
@Module({
  imports: [AccountModule, ApiKeysModule],
  providers: [CredentialsMiddleware],
  exports: [CredentialsMiddleware],
})
export class AuthModule {}
