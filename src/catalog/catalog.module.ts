import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MediaModule } from '../media/media.module';
import { CatalogDataOwner } from './catalog-data.owner';
import { CatalogRepository } from './catalog.repository';
import { CatalogService } from './catalog.service';
import { CategoriesController } from './categories.controller';
import { CategoriesService } from './categories.service';
import { ProductCategoryEntity } from './entities/product-category.entity';
import { ProductVariantEntity } from './entities/product-variant.entity';
import { ProductEntity } from './entities/product.entity';
import { CatalogMediaDeletedSubscriber } from './media-deleted.subscriber';
import { ProductsController } from './products.controller';
import { ProductsService } from './products.service';
import { ProductSyncRepository } from './product-sync.repository';
import { ProductSyncService } from './product-sync.service';
import { PublicCatalogCache } from './public-catalog.cache';
import { AnswersProblems } from '../common/errors/problem-codes';
import { CATALOG_PROBLEMS } from './catalog.problems';

/**
 * Product categories, products and variants (docs/catalog.md). Orders price their lines and
 * take stock through CatalogService; v1 maps products and categories through the two services.
 */
@AnswersProblems(CATALOG_PROBLEMS)
@Module({
  imports: [TypeOrmModule.forFeature([ProductCategoryEntity, ProductEntity, ProductVariantEntity]), MediaModule],
  controllers: [CategoriesController, ProductsController],
  providers: [
    CatalogRepository,
    CategoriesService,
    ProductsService,
    CatalogService,
    PublicCatalogCache,
    CatalogMediaDeletedSubscriber,
    CatalogDataOwner,
    ProductSyncRepository,
    ProductSyncService,
  ],
  exports: [CategoriesService, ProductsService, CatalogService, ProductSyncService],
})
export class CatalogModule {}
