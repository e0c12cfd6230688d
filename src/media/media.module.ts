import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MediaConfig } from './media.config';
import { MediaItemEntity } from './entities/media-item.entity';
import {
  MediaCategoryEntity,
  MediaItemCategoryEntity,
  MediaItemTagEntity,
  MediaTagEntity,
} from './entities/media-term.entity';
import { MediaCategoriesController } from './media-categories.controller';
import { MediaDataOwner } from './media-data.owner';
import { MediaFilesJob } from './media-files.job';
import { MediaFilesMiddleware } from './media-files.middleware';
import { MediaLinks } from './media-links';
import { MediaRepository } from './media.repository';
import { MediaDataRepository } from './media-data.repository';
import { MediaTagsController } from './media-tags.controller';
import { MediaTermsService } from './media-terms.service';
import { MediaUploadService } from './media-upload.service';
import { MediaController } from './media.controller';
import { MediaService } from './media.service';
import { mediaStorageProvider } from './storage/storage.provider';
import { AnswersProblems } from '../common/errors/problem-codes';
import { MEDIA_PROBLEMS } from './media.problems';

@AnswersProblems(MEDIA_PROBLEMS)
@Module({
  imports: [
    TypeOrmModule.forFeature([
      MediaItemEntity,
      MediaCategoryEntity,
      MediaTagEntity,
      MediaItemCategoryEntity,
      MediaItemTagEntity,
    ]),
  ],
  // Categories and tags first: `media/categories` must not be taken for `media/:id`.
  controllers: [MediaCategoriesController, MediaTagsController, MediaController],
  providers: [
    mediaStorageProvider,
    MediaLinks,
    MediaFilesJob,
    MediaDataOwner,
    MediaRepository,
    MediaDataRepository,
    MediaService,
    MediaUploadService,
    MediaTermsService,
  ],
  exports: [MediaService, MediaUploadService],
})
export class MediaModule implements NestModule {
  constructor(private readonly config: MediaConfig) {}

  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(MediaFilesMiddleware)
      .forRoutes({ path: `${this.config.MEDIA_PUBLIC_PATH}/*path`, method: RequestMethod.ALL });
  }
}
