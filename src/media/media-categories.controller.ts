import { Body, Delete, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentSite } from '../common/auth/decorators';
import { SiteIdParamDto } from '../common/http/params';
import { CursorQueryDto, mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import {
  CreateMediaTermDto,
  MediaCategoryResponseDto,
  toMediaTermResponse,
  UpdateMediaTermDto,
} from './dto/media-term.dto';
import { MediaTermsService } from './media-terms.service';
import { created } from '../common/http/public-urls';
import { ApiController, Route } from '../common/http/route.decorator';

@ApiController('api/v2/sites/:siteName/media/categories', { tag: 'Media', permissions: 'media' })
export class MediaCategoriesController {
  constructor(private readonly terms: MediaTermsService) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'List categories',
    publishable: true,
    description: 'Oldest first.',
    ok: PageDto(MediaCategoryResponseDto),
  })
  async listMediaCategories(
    @CurrentSite() site: SiteContext,
    @Query() query: CursorQueryDto,
  ): Promise<Page<MediaCategoryResponseDto>> {
    return mapPage(await this.terms.list('category', site, query), toMediaTermResponse);
  }

  @Post()
  @Route({
    auth: 'key',
    summary: 'Create category',
    description: 'The slug defaults to one made from the name; it is unique in the site.',
    created: MediaCategoryResponseDto,
  })
  async createMediaCategory(
    @CurrentSite() site: SiteContext,
    @Body() dto: CreateMediaTermDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<MediaCategoryResponseDto> {
    const term = await this.terms.create('category', site, dto);
    created(res, `/api/v2/sites/${site.name}/media/categories/${term.id}`);
    return toMediaTermResponse(term);
  }

  @Get(':id')
  @Route({ auth: 'key', summary: 'Get category', publishable: true, ok: MediaCategoryResponseDto })
  async getMediaCategory(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
  ): Promise<MediaCategoryResponseDto> {
    return toMediaTermResponse(await this.terms.get('category', site, id));
  }

  @Patch(':id')
  @Route({ auth: 'key', summary: 'Update category', ok: MediaCategoryResponseDto, problems: [409] })
  async updateMediaCategory(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateMediaTermDto,
  ): Promise<MediaCategoryResponseDto> {
    return toMediaTermResponse(await this.terms.update('category', site, id, dto));
  }

  @Delete(':id')
  @Route({
    auth: 'key',
    summary: 'Delete category',
    description: 'Media items keep existing; they lose this category.',
    noContent: true,
  })
  async deleteMediaCategory(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<void> {
    await this.terms.remove('category', site, id);
  }
}
