import { Body, Delete, Get, Headers, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentPrincipal, CurrentSite } from '../common/auth/decorators';
import { Principal } from '../common/auth/principal';
import { ETAG_HEADER, setVersionEtag } from '../common/http/etag';
import { SiteIdParamDto } from '../common/http/params';
import { created } from '../common/http/public-urls';
import { ApiController, Route } from '../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { CreateProductDto, ProductIdOrSlugParamDto, ProductQueryDto, UpdateProductDto } from './dto/product.dto';
import { ProductResponseDto, ProductSummaryDto, toProductResponse, toProductSummary } from './dto/product-response.dto';
import { CreateVariantDto, UpdateVariantDto, VariantParamDto } from './dto/variant.dto';
import { ProductsService, ProductView } from './products.service';

/** Sets the ETag and maps the product with its variants. */
function withEtag(res: Response, view: ProductView): ProductResponseDto {
  setVersionEtag(res, view.product);
  return toProductResponse(view.product, view.variants);
}

/** What the variant routes answer: the product, not the variant. */
const VARIANT_ANSWER = "The product (its `id`, ETag and version are the product's), with every variant in `variants`";
const IF_MATCH = [{ name: 'If-Match', required: false, description: 'ETag from the last read' }];

@ApiController('api/v2/sites/:siteName/products', { tag: 'Products', permissions: 'catalog' })
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  @Get()
  @Route({
    auth: 'optional-key',
    summary: 'List products',
    description:
      'By position, then id; keyset-paginated. Filters: category, price range, currency, in stock, recurring, ' +
      'words (`q`). Without a key only published products are listed.',
    ok: PageDto(ProductSummaryDto),
  })
  async listProducts(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Query() query: ProductQueryDto,
  ): Promise<Page<ProductSummaryDto>> {
    return mapPage(await this.products.list(site, principal, query), toProductSummary);
  }

  @Post()
  @Route({
    auth: 'key',
    summary: 'Create a product',
    description: 'The slug is made from the name when absent.',
    created: { type: ProductResponseDto, headers: ETAG_HEADER },
  })
  async createProduct(
    @CurrentSite() site: SiteContext,
    @Body() dto: CreateProductDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ProductResponseDto> {
    const view = await this.products.create(site, dto);
    created(res, `/api/v2/sites/${site.name}/products/${view.product.id}`);
    return withEtag(res, view);
  }

  @Get(':id')
  @Route({
    auth: 'optional-key',
    summary: 'Get a product by id or slug',
    description: 'With its variants. All digits is an id, anything else a slug. Drafts need a key.',
    ok: { type: ProductResponseDto, headers: ETAG_HEADER },
  })
  async getProduct(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: ProductIdOrSlugParamDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ProductResponseDto> {
    return withEtag(res, await this.products.get(site, principal, id));
  }

  @Patch(':id')
  @Route({
    auth: 'key',
    summary: 'Update a product',
    description: 'Partial update. With If-Match, a stale ETag is a 412.',
    headers: IF_MATCH,
    ok: { type: ProductResponseDto, headers: ETAG_HEADER },
    problems: [409, 412],
  })
  async updateProduct(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateProductDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ProductResponseDto> {
    return withEtag(res, await this.products.update(site, id, dto, { ifMatch }));
  }

  @Delete(':id')
  @Route({
    auth: 'key',
    summary: 'Delete a product',
    description: 'With its variants. Orders keep their copy of what was sold.',
    headers: IF_MATCH,
    noContent: true,
    problems: [412],
  })
  async deleteProduct(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Headers('if-match') ifMatch: string | undefined,
  ): Promise<void> {
    await this.products.remove(site, id, { ifMatch });
  }

  @Post(':id/variants')
  @Route({
    auth: 'key',
    // The answer is the product (its ETag, for the next If-Match, and its Location are the product's):
    // the summary says so, because the variant's own id is what an order takes.
    summary: 'Add a variant to a product; answers the product (admin)',
    description:
      "A combination of the product's options with its own price, stock and SKU; a combination is unique per " +
      "product (409). Answers the **product** with its variants: `id` is the product's; the new variant is the " +
      'entry of `variants` with the option values (or `sku`) sent, and its `id` is what an order line takes.',
    created: { type: ProductResponseDto, headers: ETAG_HEADER, description: VARIANT_ANSWER },
    admin: true,
  })
  async createVariantProduct(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: CreateVariantDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ProductResponseDto> {
    const view = await this.products.createVariant(site, id, dto);
    created(res, `/api/v2/sites/${site.name}/products/${view.product.id}`);
    return withEtag(res, view);
  }

  @Patch(':id/variants/:variantId')
  @Route({
    auth: 'key',
    summary: 'Update a variant of a product; answers the product (admin)',
    ok: { type: ProductResponseDto, headers: ETAG_HEADER, description: VARIANT_ANSWER },
    problems: [409],
    admin: true,
  })
  async updateVariantProduct(
    @CurrentSite() site: SiteContext,
    @Param() { id, variantId }: VariantParamDto,
    @Body() dto: UpdateVariantDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ProductResponseDto> {
    return withEtag(res, await this.products.updateVariant(site, id, variantId, dto));
  }

  @Delete(':id/variants/:variantId')
  @Route({
    auth: 'key',
    summary: 'Delete a variant of a product; answers the product (admin)',
    ok: { type: ProductResponseDto, headers: ETAG_HEADER, description: VARIANT_ANSWER },
    admin: true,
  })
  async removeVariantProduct(
    @CurrentSite() site: SiteContext,
    @Param() { id, variantId }: VariantParamDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ProductResponseDto> {
    return withEtag(res, await this.products.removeVariant(site, id, variantId));
  }
}
