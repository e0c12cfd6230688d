import { Body, Delete, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentSite } from '../../common/auth/decorators';
import { SiteIdParamDto } from '../../common/http/params';
import { created } from '../../common/http/public-urls';
import { ApiController, Route } from '../../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../../common/pagination/page';
import { SiteContext } from '../../common/tenancy/site-context';
import { CreateListDto, ListQueryDto, ListResponseDto, toListResponse, UpdateListDto } from '../dto/list.dto';
import { ListsService } from './lists.service';

@ApiController('api/v2/sites/:siteName/newsletter/lists', { tag: 'Newsletter', permissions: 'newsletter' })
export class NewsletterListsController {
  constructor(private readonly lists: ListsService) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'List newsletter lists',
    description: 'Newest first, keyset-paginated, with the members of each by status.',
    ok: PageDto(ListResponseDto),
  })
  async listNewsletterLists(
    @CurrentSite() site: SiteContext,
    @Query() query: ListQueryDto,
  ): Promise<Page<ListResponseDto>> {
    return mapPage(await this.lists.list(site, query), toListResponse);
  }

  @Post()
  @Route({
    auth: 'key',
    summary: 'Create a newsletter list',
    created: ListResponseDto,
  })
  async createNewsletterList(
    @CurrentSite() site: SiteContext,
    @Body() dto: CreateListDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ListResponseDto> {
    const made = await this.lists.create(site, dto);
    created(res, `/api/v2/sites/${site.name}/newsletter/lists/${made.list.id}`);
    return toListResponse(made);
  }

  @Get(':id')
  @Route({ auth: 'key', summary: 'Get a newsletter list', ok: ListResponseDto })
  async getNewsletterList(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<ListResponseDto> {
    return toListResponse(await this.lists.get(site, id));
  }

  @Patch(':id')
  @Route({
    auth: 'key',
    summary: 'Update a newsletter list',
    description: 'Fields left out stay as they are; `doubleOptIn` applies to members who join from now on.',
    ok: ListResponseDto,
  })
  async updateNewsletterList(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateListDto,
  ): Promise<ListResponseDto> {
    return toListResponse(await this.lists.update(site, id, dto));
  }

  @Delete(':id')
  @Route({
    auth: 'key',
    summary: 'Delete a newsletter list',
    description: 'Its memberships go with it; the subscribers stay.',
    noContent: true,
  })
  async deleteNewsletterList(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<void> {
    await this.lists.remove(site, id);
  }
}
