import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SiteDirectory } from '../common/auth/principal';
import { AccountDataOwner } from './account-data.owner';
import { AccountDeletionService } from './account-deletion.service';
import { AccountPurgeJob } from './account-purge.job';
import { AccountRepository } from './account.repository';
import { AccountController } from './account.controller';
import { AccountsService } from './accounts.service';
import { AccountDeletionEntity } from './entities/account-deletion.entity';
import { AccountEntity } from '../common/tenancy/entities/account.entity';
import { SiteEntity } from '../common/tenancy/entities/site.entity';
import { SitesController } from './sites.controller';
import { SitesService } from './sites.service';
import { AnswersProblems } from '../common/errors/problem-codes';
import { ACCOUNT_PROBLEMS } from './account.problems';

@AnswersProblems(ACCOUNT_PROBLEMS)
@Module({
  imports: [TypeOrmModule.forFeature([AccountEntity, SiteEntity, AccountDeletionEntity])],
  controllers: [AccountController, SitesController],
  providers: [
    AccountsService,
    SitesService,
    AccountRepository,
    AccountDeletionService,
    AccountDataOwner,
    AccountPurgeJob,
    { provide: SiteDirectory, useExisting: SitesService },
  ],
  exports: [AccountsService, SitesService, SiteDirectory],
})
export class AccountModule {}
