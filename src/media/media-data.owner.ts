import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { AccountDataRegistry, OF_ACCOUNT } from '../common/deletion/account-data.registry';
import { MediaItemEntity } from './entities/media-item.entity';
import {
  MediaCategoryEntity,
  MediaItemCategoryEntity,
  MediaItemTagEntity,
  MediaTagEntity,
} from './entities/media-term.entity';
import { MediaFilesJob } from './media-files.job';

/**
 * Account deletion: the media items of the account's sites, their stored files
 * (removed by the files job the purge enqueues in its transaction), categories and tags.
 */
@Injectable()
export class MediaDataOwner implements OnModuleInit {
  constructor(
    private readonly registry: AccountDataRegistry,
    private readonly files: MediaFilesJob,
  ) {}

  onModuleInit(): void {
    // Before sites (900), whose delete would cascade to the rows and forget the files.
    this.registry.register({
      name: 'media',
      order: 300,
      // The item-category and item-tag links go with their items (ON DELETE CASCADE).
      entities: [MediaItemEntity, MediaCategoryEntity, MediaTagEntity, MediaItemCategoryEntity, MediaItemTagEntity],
      preview: async (em, accountId) => [
        {
          resource: 'media_items',
          count: await ofAccount(em, MediaItemEntity, accountId).andWhere('x.original_id IS NULL').getCount(),
          action: 'delete',
        },
        {
          resource: 'media_files',
          count: await ofAccount(em, MediaItemEntity, accountId).getCount(),
          action: 'delete',
        },
        {
          resource: 'media_categories',
          count: await ofAccount(em, MediaCategoryEntity, accountId).getCount(),
          action: 'delete',
        },
        { resource: 'media_tags', count: await ofAccount(em, MediaTagEntity, accountId).getCount(), action: 'delete' },
      ],
      purge: async (em, accountId) => {
        const keys = await ofAccount(em, MediaItemEntity, accountId).select('x.storage_key', 'key').getRawMany<{
          key: string;
        }>();
        const counts = {
          media_files: await remove(em, MediaItemEntity, accountId),
          media_categories: await remove(em, MediaCategoryEntity, accountId),
          media_tags: await remove(em, MediaTagEntity, accountId),
        };
        await this.files.enqueue(
          em,
          keys.map((k) => k.key),
        );
        return counts;
      },
    });
  }
}

function ofAccount<E extends ObjectLiteral>(em: EntityManager, entity: EntityTarget<E>, accountId: number) {
  return em.createQueryBuilder(entity, 'x').where(`x.${OF_ACCOUNT.site}`, { accountId });
}

async function remove(em: EntityManager, entity: EntityTarget<ObjectLiteral>, accountId: number): Promise<number> {
  const result = await em.createQueryBuilder().delete().from(entity).where(OF_ACCOUNT.site, { accountId }).execute();
  return result.affected ?? 0;
}
