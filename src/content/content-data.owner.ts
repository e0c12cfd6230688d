import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountDataRegistry } from '../common/deletion/account-data.registry';
import { ContentItemEntity } from './entities/content-item.entity';
import { ContentRevisionEntity } from './entities/content-revision.entity';

const OF_ACCOUNT = 'site_id IN (SELECT id FROM sites WHERE account_id = :accountId)';

/** Account deletion (API.md §8): every content item and revision of the account's sites. */
@Injectable()
export class ContentDataOwner implements OnModuleInit {
  constructor(private readonly registry: AccountDataRegistry) {}

  onModuleInit(): void {
    this.registry.register({
      name: 'content',
      // After collections (their items point at content), before sites.
      order: 410,
      preview: async (em, accountId) => [
        { resource: 'content_items', count: await count(em, ContentItemEntity, accountId), action: 'delete' },
        { resource: 'content_revisions', count: await count(em, ContentRevisionEntity, accountId), action: 'delete' },
      ],
      purge: async (em, accountId) => {
        const revisions = await em
          .createQueryBuilder()
          .delete()
          .from(ContentRevisionEntity)
          .where(OF_ACCOUNT, { accountId })
          .execute();
        const items = await em
          .createQueryBuilder()
          .delete()
          .from(ContentItemEntity)
          .where(OF_ACCOUNT, { accountId })
          .execute();
        return { content_items: items.affected ?? 0, content_revisions: revisions.affected ?? 0 };
      },
    });
  }
}

function count(
  em: EntityManager,
  entity: typeof ContentItemEntity | typeof ContentRevisionEntity,
  accountId: number,
): Promise<number> {
  return em.createQueryBuilder(entity, 'x').where(`x.${OF_ACCOUNT}`, { accountId }).getCount();
}
