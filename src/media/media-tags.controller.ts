import { Body, Delete, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentSite } from '../common/auth/decorators';
import { SiteIdParamDto } from '../common/http/params';
import { CursorQueryDto, mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { CreateMediaTermDto, MediaTagResponseDto, toMediaTermResponse, UpdateMediaTermDto } from './dto/media-term.dto';
import { MediaTermsService } from './media-terms.service';
import { created } from '../common/http/public-urls';
import { ApiController, Route } from '../common/http/route.decorator';

@ApiController('api/v2/sites/:siteName/media/tags', { tag: 'Media', permissions: 'media' })
export class MediaTagsController {
  constructor(private readonly terms: MediaTermsService) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'List tags',
    publishable: true,
    description: 'Oldest first.',
    ok: PageDto(MediaTagResponseDto),
  })
  async listMediaTags(
    @CurrentSite() site: SiteContext,
    @Query() query: CursorQueryDto,
  ): Promise<Page<MediaTagResponseDto>> {
    return mapPage(await this.terms.list('tag', site, query), toMediaTermResponse);
  }

  @Post()
  @Route({
    auth: 'key',
    summary: 'Create tag',
    description: 'The slug defaults to one made from the name; it is unique in the site.',
    created: MediaTagResponseDto,
  })
  async createMediaTag(
    @CurrentSite() site: SiteContext,
    @Body() dto: CreateMediaTermDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<MediaTagResponseDto> {
    const term = await this.terms.create('tag', site, dto);
    created(res, `/api/v2/sites/${site.name}/media/tags/${term.id}`);
    return toMediaTermResponse(term);
  }

  @Get(':id')
  @Route({ auth: 'key', summary: 'Get tag', publishable: true, ok: MediaTagResponseDto })
  async getMediaTag(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<MediaTagResponseDto> {
    return toMediaTermResponse(await this.terms.get('tag', site, id));
  }

  @Patch(':id')
  @Route({ auth: 'key', summary: 'Update tag', ok: MediaTagResponseDto, problems: [409] })
  async updateMediaTag(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateMediaTermDto,
  ): Promise<MediaTagResponseDto> {
    return toMediaTermResponse(await this.terms.update('tag', site, id, dto));
  }

  @Delete(':id')
  @Route({
    auth: 'key',
    summary: 'Delete tag',
    description: 'Media items keep existing; they lose this tag.',
    noContent: true,
  })
  async deleteMediaTag(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<void> {
    await this.terms.remove('tag', site, id);
  }
}
