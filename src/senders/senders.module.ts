import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SenderDomainEntity } from './entities/sender-domain.entity';
import { SenderDns } from './sender-dns';
import { SenderDomainsController } from './sender-domains.controller';
import { SenderDomainsService } from './sender-domains.service';
import { SendersDataOwner } from './senders-data.owner';
import { SendersRepository } from './senders.repository';
import { SendersService } from './senders.service';
import { AnswersProblems } from '../common/errors/problem-codes';
import { SENDERS_PROBLEMS } from './senders.problems';

/** Sender domains: which domains an account's sites may send From, and their DKIM keys (docs/email.md). */
@AnswersProblems(SENDERS_PROBLEMS)
@Module({
  imports: [TypeOrmModule.forFeature([SenderDomainEntity])],
  controllers: [SenderDomainsController],
  providers: [SenderDomainsService, SendersService, SendersRepository, SenderDns, SendersDataOwner],
  exports: [SendersService],
})
export class SendersModule {}
