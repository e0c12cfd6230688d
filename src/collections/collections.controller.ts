import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiKeyAuth, CurrentSite, Public } from '../common/auth/decorators';
import { ApiProblems } from '../common/errors/api-problems.decorator';
import { SiteIdParamDto } from '../common/http/params';
import { CursorQueryDto, mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { CollectionsService } from './collections.service';
import {
  CollectionResponseDto,
  CreateCollectionDto,
  toCollectionResponse,
  UpdateCollectionDto,
} from './dto/collection.dto';
import { OptionalKeyAuth } from '../content/optional-key-auth.decorator';
import { created } from '../common/http/public-urls';

@ApiTags('Collections')
@Controller('api/v2/sites/:siteName/collections')
export class CollectionsController {
  constructor(private readonly collections: CollectionsService) {}

  @Get()
  @Public()
  @OptionalKeyAuth()
  @ApiOperation({ summary: 'List collections', description: 'Newest first, keyset-paginated.' })
  @ApiOkResponse({ type: PageDto(CollectionResponseDto) })
  @ApiProblems(400, 401, 404, 429)
  async list(@CurrentSite() site: SiteContext, @Query() query: CursorQueryDto): Promise<Page<CollectionResponseDto>> {
    return mapPage(await this.collections.list(site, query), toCollectionResponse);
  }

  @Post()
  @ApiKeyAuth()
  @ApiOperation({ summary: 'Create a collection', description: 'The slug is generated from the name when absent.' })
  @ApiCreatedResponse({ type: CollectionResponseDto })
  @ApiProblems(400, 401, 404, 409)
  async create(
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
  @Public()
  @OptionalKeyAuth()
  @ApiOperation({
    summary: 'Get the current collection',
    description: 'The pinned one; else the one whose window contains now and started last.',
  })
  @ApiOkResponse({ type: CollectionResponseDto })
  @ApiProblems(401, 404, 429)
  async current(@CurrentSite() site: SiteContext): Promise<CollectionResponseDto> {
    return toCollectionResponse(await this.collections.current(site));
  }

  @Get(':id')
  @Public()
  @OptionalKeyAuth()
  @ApiOperation({ summary: 'Get a collection' })
  @ApiOkResponse({ type: CollectionResponseDto })
  @ApiProblems(400, 401, 404, 429)
  async get(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<CollectionResponseDto> {
    return toCollectionResponse(await this.collections.get(site, id));
  }

  @Patch(':id')
  @ApiKeyAuth()
  @ApiOperation({ summary: 'Update a collection' })
  @ApiOkResponse({ type: CollectionResponseDto })
  @ApiProblems(400, 401, 404, 409)
  async update(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateCollectionDto,
  ): Promise<CollectionResponseDto> {
    return toCollectionResponse(await this.collections.update(site, id, dto));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiKeyAuth()
  @ApiOperation({ summary: 'Delete a collection', description: 'Its content stays.' })
  @ApiNoContentResponse()
  @ApiProblems(400, 401, 404)
  async remove(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<void> {
    await this.collections.remove(site, id);
  }
}
