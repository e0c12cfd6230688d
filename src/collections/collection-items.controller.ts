import { Body, Delete, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentPrincipal, CurrentSite } from '../common/auth/decorators';
import { canSeeDrafts, Principal } from '../common/auth/principal';
import { SiteIdParamDto } from '../common/http/params';
import { created } from '../common/http/public-urls';
import { ApiController, Route } from '../common/http/route.decorator';
import { CursorQueryDto, mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { CollectionItemsService } from './collection-items.service';
import { AddCollectionItemDto, CollectionItemResponseDto, toCollectionItemResponse } from './dto/collection-item.dto';
import { CollectionItemParamDto } from './dto/collection.dto';

@ApiController('api/v2/sites/:siteName/collections/:id/items', { tag: 'Collections', permissions: 'collections' })
export class CollectionItemsController {
  constructor(private readonly items: CollectionItemsService) {}

  @Get()
  @Route({
    auth: 'optional-key',
    summary: 'List the items of a collection',
    description: 'In position order. Without a key only published content is listed.',
    ok: PageDto(CollectionItemResponseDto),
  })
  async listCollectionItems(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: SiteIdParamDto,
    @Query() query: CursorQueryDto,
  ): Promise<Page<CollectionItemResponseDto>> {
    return mapPage(await this.items.list(site, id, query, canSeeDrafts(principal)), toCollectionItemResponse);
  }

  @Post()
  @Route({
    auth: 'key',
    summary: 'Add an item',
    description: 'At a position (default last); the same content twice is a 409.',
    created: CollectionItemResponseDto,
  })
  async addCollectionItem(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: AddCollectionItemDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CollectionItemResponseDto> {
    const item = await this.items.add(site, id, dto);
    created(res, `/api/v2/sites/${site.name}/collections/${id}/items/${item.contentId}`);
    return toCollectionItemResponse(item);
  }

  @Delete(':itemId')
  @Route({
    auth: 'key',
    summary: 'Remove an item',
    description: '`itemId` is the content id; the content itself stays.',
    noContent: true,
  })
  async deleteCollectionItem(
    @CurrentSite() site: SiteContext,
    @Param() { id, itemId }: CollectionItemParamDto,
  ): Promise<void> {
    await this.items.remove(site, id, itemId);
  }
}
