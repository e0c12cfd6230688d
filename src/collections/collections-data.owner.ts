import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { CollectionItemEntity } from './entities/collection-item.entity';
import { CollectionEntity } from './entities/collection.entity';

/** Account deletion: the collections of the account's sites and their item lists. */
@Injectable()
export class CollectionsDataOwner implements OnModuleInit {
  constructor(private readonly registry: AccountDataRegistry) {}

  onModuleInit(): void {
    // Before content (items point at it) and sites.
    this.registry.register(
      tablesOwner('collections', 400, [
        {
          resource: 'collection_items',
          entity: CollectionItemEntity,
          via: { column: 'collection_id', parent: 'collections' },
        },
        { resource: 'collections', entity: CollectionEntity },
      ]),
    );
  }
}
