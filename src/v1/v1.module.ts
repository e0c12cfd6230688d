import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module';
import { ContentModule } from '../content/content.module';
import { MediaModule } from '../media/media.module';
import { V1MediaController } from './v1-media.controller';
import { V1PagesController } from './v1-pages.controller';
import { V1PagesService } from './v1-pages.service';
import { V1ProductsController } from './v1-products.controller';
import { V1ProductsService } from './v1-products.service';
import { V1ProjectMediaController } from './v1-project-media.controller';

/**
 * v1 legacy routes: thin adapters over the v2 services, snake_case fields,
 * every success 200 except the project media routes (204). Every /v1 path needs `x-api-key`
 * (CredentialsMiddleware); the AuthGuard resolves `site_name` or `organization_id`/`project_id`.
 * Each resource adds its controller here and imports the module whose service it adapts.
 */
@Module({
  imports: [MediaModule, ContentModule, CatalogModule],
  controllers: [V1MediaController, V1ProjectMediaController, V1PagesController, V1ProductsController],
  providers: [V1PagesService, V1ProductsService],
})
export class V1Module {}
