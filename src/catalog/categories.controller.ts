import { Body, Delete, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentSite } from '../common/auth/decorators';
import { SiteIdParamDto } from '../common/http/params';
import { created } from '../common/http/public-urls';
import { ApiController, Route } from '../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { CategoriesService } from './categories.service';
import {
  CategoryQueryDto,
  CategoryResponseDto,
  CreateCategoryDto,
  toCategoryResponse,
  UpdateCategoryDto,
} from './dto/category.dto';

@ApiController('api/v2/sites/:siteName/categories', { tag: 'Categories', permissions: 'catalog' })
export class CategoriesController {
  constructor(private readonly categories: CategoriesService) {}

  @Get()
  @Route({
    auth: 'optional-key',
    summary: 'List product categories',
    description: 'By position, then id; keyset-paginated. Anyone may read.',
    ok: PageDto(CategoryResponseDto),
  })
  async listCategories(
    @CurrentSite() site: SiteContext,
    @Query() query: CategoryQueryDto,
  ): Promise<Page<CategoryResponseDto>> {
    return mapPage(await this.categories.list(site, query), toCategoryResponse);
  }

  @Post()
  @Route({
    auth: 'key',
    summary: 'Create a product category',
    description: 'The slug is made from the name when absent.',
    created: CategoryResponseDto,
  })
  async createCategory(
    @CurrentSite() site: SiteContext,
    @Body() dto: CreateCategoryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CategoryResponseDto> {
    const category = await this.categories.create(site, dto);
    created(res, `/api/v2/sites/${site.name}/categories/${category.id}`);
    return toCategoryResponse(category);
  }

  @Get(':id')
  @Route({ auth: 'optional-key', summary: 'Get a product category', ok: CategoryResponseDto })
  async getCategory(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<CategoryResponseDto> {
    return toCategoryResponse(await this.categories.get(site, id, true));
  }

  @Patch(':id')
  @Route({ auth: 'key', summary: 'Update a product category', ok: CategoryResponseDto, problems: [409] })
  async updateCategory(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateCategoryDto,
  ): Promise<CategoryResponseDto> {
    return toCategoryResponse(await this.categories.update(site, id, dto));
  }

  @Delete(':id')
  @Route({
    auth: 'key',
    summary: 'Delete a product category',
    description: 'Its products stay, without a category.',
    noContent: true,
  })
  async deleteCategory(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<void> {
    await this.categories.remove(site, id);
  }
}
