import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { ContentItemEntity } from './entities/content-item.entity';
import { ContentRevisionEntity } from './entities/content-revision.entity';

/** Account deletion: every content item and revision of the account's sites. */
@Injectable()
export class ContentDataOwner implements OnModuleInit {
  constructor(private readonly registry: AccountDataRegistry) {}

  onModuleInit(): void {
    // After collections (their items point at content), before sites.
    this.registry.register(
      tablesOwner('content', 410, [
        { resource: 'content_revisions', entity: ContentRevisionEntity },
        { resource: 'content_items', entity: ContentItemEntity },
      ]),
    );
  }
}
