import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { ProductCategoryEntity } from './entities/product-category.entity';
import { ProductVariantEntity } from './entities/product-variant.entity';
import { ProductEntity } from './entities/product.entity';

/** Account deletion: the catalog of the account's sites. Orders keep their own copy of each line. */
@Injectable()
export class CatalogDataOwner implements OnModuleInit {
  constructor(private readonly registry: AccountDataRegistry) {}

  onModuleInit(): void {
    // After orders (which keep their lines, not the products), before media and sites.
    this.registry.register(
      tablesOwner('catalog', 360, [
        {
          resource: 'product_variants',
          entity: ProductVariantEntity,
          via: { column: 'product_id', parent: 'products' },
        },
        { resource: 'products', entity: ProductEntity },
        { resource: 'product_categories', entity: ProductCategoryEntity },
      ]),
    );
  }
}
