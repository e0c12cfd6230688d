import { Param, Post } from '@nestjs/common';
import { CurrentPrincipal, CurrentSite } from '../../common/auth/decorators';
import { Principal } from '../../common/auth/principal';
import { SiteIdParamDto } from '../../common/http/params';
import { ApiController, Route } from '../../common/http/route.decorator';
import { SiteContext } from '../../common/tenancy/site-context';
import { ProductResponseDto, toProductResponse } from '../../catalog/dto/product-response.dto';
import { CatalogSyncService } from './catalog-sync.service';

/**
 * The catalog sync's one route (docs/payments.md, "Catalog sync"), under the products it acts on
 * (group Products: a key with catalog write). It lives here, not in the catalog's controller:
 * the catalog does not know payments (no import cycle), and the route answers its codes.
 */
@ApiController('api/v2/sites/:siteName/products', { tag: 'Products', permissions: 'catalog' })
export class CatalogSyncController {
  constructor(private readonly catalogSync: CatalogSyncService) {}

  @Post(':id/processor-sync')
  @Route({
    auth: 'key',
    summary: 'Sync a product to Stripe again',
    description:
      "Queues the product's sync to every Stripe mode the site has keys for, even when nothing changed: the " +
      're-drive of a `failed` sync once its cause is fixed. Answers the product, `processorSync.status` ' +
      '`pending`. 409 `processor_not_connected` for a site without Stripe.',
    ok: ProductResponseDto,
  })
  async syncProductToProcessor(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: SiteIdParamDto,
  ): Promise<ProductResponseDto> {
    const view = await this.catalogSync.redrive(site, principal, id);
    return toProductResponse(view.product, view.variants);
  }
}
