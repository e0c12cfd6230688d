import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountModule } from '../account/account.module';
import { ApiKeyVerifier } from '../common/auth/principal';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysDataOwner } from './api-keys-data.owner';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyVerification } from './api-key-verification';
import { ApiKeyEntity } from './entities/api-key.entity';
import { AnswersProblems } from '../common/errors/problem-codes';
import { API_KEYS_PROBLEMS } from './api-keys.problems';

@AnswersProblems(API_KEYS_PROBLEMS)
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity]), AccountModule],
  controllers: [ApiKeysController],
  providers: [
    ApiKeysService,
    ApiKeyVerification,
    ApiKeysRepository,
    ApiKeysDataOwner,
    { provide: ApiKeyVerifier, useExisting: ApiKeyVerification },
  ],
  exports: [ApiKeysService, ApiKeyVerifier],
})
export class ApiKeysModule {}
