import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountModule } from '../account/account.module';
import { MediaModule } from '../media/media.module';
import { ContentDataOwner } from './content-data.owner';
import { ContentPublishJob } from './content-publish.job';
import { ContentWriter } from './content-writer';
import { ContentController } from './content.controller';
import { ContentRepository } from './content.repository';
import { RevisionsRepository } from './revisions.repository';
import { ContentService } from './content.service';
import { MediaDeletedSubscriber } from './media-deleted.subscriber';
import { PublicContentCache } from './public-content.cache';
import { ContentItemEntity } from './entities/content-item.entity';
import { ContentRevisionEntity } from './entities/content-revision.entity';
import { ContentRevisionsController } from './content-revisions.controller';
import { RevisionsService } from './revisions.service';
import { AnswersProblems } from '../common/errors/problem-codes';
import { CONTENT_PROBLEMS } from './content.problems';

@AnswersProblems(CONTENT_PROBLEMS)
@Module({
  imports: [TypeOrmModule.forFeature([ContentItemEntity, ContentRevisionEntity]), AccountModule, MediaModule],
  controllers: [ContentController, ContentRevisionsController],
  providers: [
    ContentService,
    RevisionsService,
    ContentRepository,
    RevisionsRepository,
    ContentWriter,
    ContentPublishJob,
    ContentDataOwner,
    PublicContentCache,
    MediaDeletedSubscriber,
  ],
  exports: [ContentService],
})
export class ContentModule {}
