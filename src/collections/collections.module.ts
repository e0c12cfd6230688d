import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ContentModule } from '../content/content.module';
import { CollectionItemsController } from './collection-items.controller';
import { CollectionItemsService } from './collection-items.service';
import { CollectionsDataOwner } from './collections-data.owner';
import { CollectionsController } from './collections.controller';
import { CollectionsRepository } from './collections.repository';
import { CollectionsService } from './collections.service';
import { CollectionItemEntity } from './entities/collection-item.entity';
import { CollectionEntity } from './entities/collection.entity';
import { AnswersProblems } from '../common/errors/problem-codes';
import { COLLECTIONS_PROBLEMS } from './collections.problems';

@AnswersProblems(COLLECTIONS_PROBLEMS)
@Module({
  imports: [TypeOrmModule.forFeature([CollectionEntity, CollectionItemEntity]), ContentModule],
  controllers: [CollectionsController, CollectionItemsController],
  providers: [CollectionsService, CollectionsRepository, CollectionItemsService, CollectionsDataOwner],
  exports: [CollectionsService],
})
export class CollectionsModule {}
