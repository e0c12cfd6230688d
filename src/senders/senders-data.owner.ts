import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { SenderDomainEntity } from './entities/sender-domain.entity';

/** Account deletion: the account's sender domains and their DKIM keys, before the account's keys and sites. */
@Injectable()
export class SendersDataOwner implements OnModuleInit {
  constructor(private readonly registry: AccountDataRegistry) {}

  onModuleInit(): void {
    this.registry.register(
      tablesOwner('senders', 790, [{ resource: 'sender_domains', entity: SenderDomainEntity, scope: 'account' }]),
    );
  }
}
