import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiKeyAuth, CurrentSite } from '../common/auth/decorators';
import { ApiProblems } from '../common/errors/api-problems.decorator';
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

@ApiTags('Media')
@ApiKeyAuth()
@ApiParam({ name: 'siteName', example: 'demo' })
@Controller('api/v2/sites/:siteName/media/categories')
export class MediaCategoriesController {
  constructor(private readonly terms: MediaTermsService) {}

  @Get()
  @ApiOperation({ summary: 'List categories', description: 'Oldest first.' })
  @ApiOkResponse({ type: PageDto(MediaCategoryResponseDto) })
  @ApiProblems(400, 401, 404)
  async list(
    @CurrentSite() site: SiteContext,
    @Query() query: CursorQueryDto,
  ): Promise<Page<MediaCategoryResponseDto>> {
    return mapPage(await this.terms.list('category', site, query), toMediaTermResponse);
  }

  @Post()
  @ApiOperation({
    summary: 'Create category',
    description: 'The slug defaults to one made from the name; it is unique in the site.',
  })
  @ApiCreatedResponse({ type: MediaCategoryResponseDto })
  @ApiProblems(400, 401, 404, 409)
  async create(
    @CurrentSite() site: SiteContext,
    @Body() dto: CreateMediaTermDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<MediaCategoryResponseDto> {
    const term = await this.terms.create('category', site, dto);
    created(res, `/api/v2/sites/${site.name}/media/categories/${term.id}`);
    return toMediaTermResponse(term);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get category' })
  @ApiOkResponse({ type: MediaCategoryResponseDto })
  @ApiProblems(400, 401, 404)
  async get(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<MediaCategoryResponseDto> {
    return toMediaTermResponse(await this.terms.get('category', site, id));
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Update category' })
  @ApiOkResponse({ type: MediaCategoryResponseDto })
  @ApiProblems(400, 401, 404, 409)
  async update(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateMediaTermDto,
  ): Promise<MediaCategoryResponseDto> {
    return toMediaTermResponse(await this.terms.update('category', site, id, dto));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete category', description: 'Media items keep existing; they lose this category.' })
  @ApiNoContentResponse()
  @ApiProblems(400, 401, 404)
  async remove(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<void> {
    await this.terms.remove('category', site, id);
  }
}
