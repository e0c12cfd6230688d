import { Body, Get, Param, Put } from '@nestjs/common';
import { ApiExtraModels } from '@nestjs/swagger';
import { CurrentPrincipal, CurrentSite } from '../common/auth/decorators';
import { Principal } from '../common/auth/principal';
import { ApiController, Route } from '../common/http/route.decorator';
import { SiteContext } from '../common/tenancy/site-context';
import {
  toV1Product,
  toV1ProductCategory,
  V1CreateVariantDto,
  V1ProductCategoryParamDto,
  V1ProductCategoryResponseDto,
  V1ProductParamDto,
  V1ProductResponseDto,
  V1RecurringDto,
  V1UpdateProductDto,
} from './dto/v1-product.dto';
import { V1ProductsService } from './v1-products.service';

/** INTERFACE.md §4.1 products and product categories, over the catalog. */
@ApiExtraModels(V1RecurringDto)
@ApiController('v1/:site_name', { tag: 'v1 legacy', permissions: 'catalog' })
export class V1ProductsController {
  constructor(private readonly products: V1ProductsService) {}

  @Put('products/:product_id')
  @Route({
    auth: 'legacy-key',
    summary: 'Update a product (v1)',
    description:
      'Every field optional. `price` (major units) and `unit_amount` (minor units) are the same amount: send ' +
      'either, or both when they agree. `replace_attachments: false` (or absent) adds `attachment_ids`.',
    ok: V1ProductResponseDto,
    problems: [409],
  })
  async updateV1Product(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { product_id }: V1ProductParamDto,
    @Body() body: V1UpdateProductDto,
  ): Promise<V1ProductResponseDto> {
    const { view, media } = await this.products.update(site, principal, product_id, body);
    return toV1Product(view, media);
  }

  @Put('products/:product_id/variant')
  @Route({
    auth: 'legacy-key',
    summary: 'Add a variant to a product (v1)',
    description:
      '`variant` names option values (`option1_value`) and may name the options (`option1`); the other fields ' +
      'update the product as the update does. Answers the product with its variants.',
    ok: V1ProductResponseDto,
    problems: [409],
  })
  async addVariantV1Product(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { product_id }: V1ProductParamDto,
    @Body() body: V1CreateVariantDto,
  ): Promise<V1ProductResponseDto> {
    const { view, media } = await this.products.addVariant(site, principal, product_id, body);
    return toV1Product(view, media);
  }

  @Get('product_category/:product_category_id')
  @Route({
    auth: 'legacy-key',
    summary: 'Get a product category with its products (v1)',
    description: 'Its products nest with their variants and media.',
    ok: V1ProductCategoryResponseDto,
  })
  async categoryV1Product(
    @CurrentSite() site: SiteContext,
    @Param() { product_category_id }: V1ProductCategoryParamDto,
  ): Promise<V1ProductCategoryResponseDto> {
    return toV1ProductCategory(site, await this.products.category(site, product_category_id));
  }
}
