import { Body, Delete, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentSite } from '../common/auth/decorators';
import { SiteIdParamDto } from '../common/http/params';
import { created } from '../common/http/public-urls';
import { ApiController, Route } from '../common/http/route.decorator';
import { CursorQueryDto, mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { CollectionsService } from './collections.service';
import {
  CollectionResponseDto,
  CreateCollectionDto,
  toCollectionResponse,
  UpdateCollectionDto,
} from './dto/collection.dto';

@ApiController('api/v2/sites/:siteName/collections', { tag: 'Collections', permissions: 'collections' })
export class CollectionsController {
  constructor(private readonly collections: CollectionsService) {}

  @Get()
  @Route({
    auth: 'optional-key',
    summary: 'List collections',
    description: 'Newest first, keyset-paginated.',
    ok: PageDto(CollectionResponseDto),
  })
  async listCollections(
    @CurrentSite() site: SiteContext,
    @Query() query: CursorQueryDto,
  ): Promise<Page<CollectionResponseDto>> {
    return mapPage(await this.collections.list(site, query), toCollectionResponse);
  }

  @Post()
  @Route({
    auth: 'key',
    summary: 'Create a collection',
    description: 'The slug is generated from the name when absent.',
    created: CollectionResponseDto,
  })
  async createCollection(
    @CurrentSite() site: SiteContext,
    @Body() dto: CreateCollectionDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CollectionResponseDto> {
    const collection = await this.collections.create(site, dto);
    created(res, `/api/v2/sites/${site.name}/collections/${collection.id}`);
    return toCollectionResponse(collection);
  }

  // Declared before `:id`, so "current" is not read as an id.
  @Get('current')
  @Route({
    auth: 'optional-key',
    summary: 'Get the current collection',
    description: 'The pinned one; else the one whose window contains now and started last.',
    ok: CollectionResponseDto,
  })
  async getCurrentCollection(@CurrentSite() site: SiteContext): Promise<CollectionResponseDto> {
    return toCollectionResponse(await this.collections.current(site));
  }

  @Get(':id')
  @Route({ auth: 'optional-key', summary: 'Get a collection', ok: CollectionResponseDto })
  async getCollection(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
  ): Promise<CollectionResponseDto> {
    return toCollectionResponse(await this.collections.get(site, id));
  }

  @Patch(':id')
  @Route({ auth: 'key', summary: 'Update a collection', ok: CollectionResponseDto, problems: [409] })
  async updateCollection(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateCollectionDto,
  ): Promise<CollectionResponseDto> {
    return toCollectionResponse(await this.collections.update(site, id, dto));
  }

  @Delete(':id')
  @Route({
    auth: 'key',
    summary: 'Delete a collection',
    description: 'Its content stays.',
    noContent: true,
  })
  async deleteCollection(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<void> {
    await this.collections.remove(site, id);
  }
}
