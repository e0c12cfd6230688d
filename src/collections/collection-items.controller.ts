import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiKeyAuth, CurrentPrincipal, CurrentSite, Public } from '../common/auth/decorators';
import { Principal } from '../common/auth/principal';
import { ApiProblems } from '../common/errors/api-problems.decorator';
import { SiteIdParamDto } from '../common/http/params';
import { CursorQueryDto, mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { seesDrafts } from '../content/content.service';
import { CollectionItemsService } from './collection-items.service';
import { AddCollectionItemDto, CollectionItemResponseDto, toCollectionItemResponse } from './dto/collection-item.dto';
import { CollectionItemParamDto } from './dto/collection.dto';
import { OptionalKeyAuth } from '../content/optional-key-auth.decorator';
import { created } from '../common/http/public-urls';

@ApiTags('Collections')
@Controller('api/v2/sites/:siteName/collections/:id/items')
export class CollectionItemsController {
  constructor(private readonly items: CollectionItemsService) {}

  @Get()
  @Public()
  @OptionalKeyAuth()
  @ApiOperation({
    summary: 'List the items of a collection',
    description: 'In position order. Without a key only published content is listed.',
  })
  @ApiOkResponse({ type: PageDto(CollectionItemResponseDto) })
  @ApiProblems(400, 401, 404, 429)
  async list(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: SiteIdParamDto,
    @Query() query: CursorQueryDto,
  ): Promise<Page<CollectionItemResponseDto>> {
    return mapPage(await this.items.list(site, id, query, seesDrafts(principal)), toCollectionItemResponse);
  }

  @Post()
  @ApiKeyAuth()
  @ApiOperation({
    summary: 'Add an item',
    description: 'At a position (default last); the same content twice is a 409.',
  })
  @ApiCreatedResponse({ type: CollectionItemResponseDto })
  @ApiProblems(400, 401, 404, 409)
  async add(
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
  @HttpCode(204)
  @ApiKeyAuth()
  @ApiOperation({ summary: 'Remove an item', description: '`itemId` is the content id; the content itself stays.' })
  @ApiNoContentResponse()
  @ApiProblems(400, 401, 404)
  async remove(@CurrentSite() site: SiteContext, @Param() { id, itemId }: CollectionItemParamDto): Promise<void> {
    await this.items.remove(site, id, itemId);
  }
}
