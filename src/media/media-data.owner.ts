import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry } from '../common/deletion/account-data.registry';
import { MediaItemEntity } from './entities/media-item.entity';
import {
  MediaCategoryEntity,
  MediaItemCategoryEntity,
  MediaItemTagEntity,
  MediaTagEntity,
} from './entities/media-term.entity';
import { MediaDataRepository } from './media-data.repository';
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
    private readonly repository: MediaDataRepository,
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
          count: await this.repository.countOfAccount(em, MediaItemEntity, accountId, true),
          action: 'delete',
        },
        {
          resource: 'media_files',
          count: await this.repository.countOfAccount(em, MediaItemEntity, accountId),
          action: 'delete',
        },
        {
          resource: 'media_categories',
          count: await this.repository.countOfAccount(em, MediaCategoryEntity, accountId),
          action: 'delete',
        },
        {
          resource: 'media_tags',
          count: await this.repository.countOfAccount(em, MediaTagEntity, accountId),
          action: 'delete',
        },
      ],
      purge: async (em, accountId) => {
        const keys = await this.repository.storageKeysOfAccount(em, accountId);
        const counts = {
          media_files: await this.repository.removeOfAccount(em, MediaItemEntity, accountId),
          media_categories: await this.repository.removeOfAccount(em, MediaCategoryEntity, accountId),
          media_tags: await this.repository.removeOfAccount(em, MediaTagEntity, accountId),
        };
        await this.files.enqueue(em, keys);
        return counts;
      },
    });
  }
}
