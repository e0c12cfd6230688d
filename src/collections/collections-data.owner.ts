import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountDataRegistry } from '../common/deletion/account-data.registry';
import { CollectionItemEntity } from './entities/collection-item.entity';
import { CollectionEntity } from './entities/collection.entity';

const OF_ACCOUNT = 'site_id IN (SELECT id FROM sites WHERE account_id = :accountId)';

/** Account deletion (API.md §8): the collections of the account's sites and their item lists. */
@Injectable()
export class CollectionsDataOwner implements OnModuleInit {
  constructor(private readonly registry: AccountDataRegistry) {}

  onModuleInit(): void {
    this.registry.register({
      name: 'collections',
      // Before content (items point at it) and sites.
      order: 400,
      preview: async (em, accountId) => [
        { resource: 'collections', count: await count(em, CollectionEntity, accountId), action: 'delete' },
        { resource: 'collection_items', count: await count(em, CollectionItemEntity, accountId), action: 'delete' },
      ],
      purge: async (em, accountId) => {
        const items = await em
          .createQueryBuilder()
          .delete()
          .from(CollectionItemEntity)
          .where(OF_ACCOUNT, { accountId })
          .execute();
        const collections = await em
          .createQueryBuilder()
          .delete()
          .from(CollectionEntity)
          .where(OF_ACCOUNT, { accountId })
          .execute();
        return { collections: collections.affected ?? 0, collection_items: items.affected ?? 0 };
      },
    });
  }
}

function count(
  em: EntityManager,
  entity: typeof CollectionEntity | typeof CollectionItemEntity,
  accountId: number,
): Promise<number> {
  return em.createQueryBuilder(entity, 'x').where(`x.${OF_ACCOUNT}`, { accountId }).getCount();
}
