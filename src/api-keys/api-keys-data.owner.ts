import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { ApiKeyEntity } from './entities/api-key.entity';

/** Account deletion: the account's keys, after every site's data, before the sites. */
@Injectable()
export class ApiKeysDataOwner implements OnModuleInit {
  constructor(private readonly registry: AccountDataRegistry) {}

  onModuleInit(): void {
    this.registry.register(
      tablesOwner('api_keys', 800, [{ resource: 'api_keys', entity: ApiKeyEntity, scope: 'account' }]),
    );
  }
}
