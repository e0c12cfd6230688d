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
import { CreateMediaTermDto, MediaTagResponseDto, toMediaTermResponse, UpdateMediaTermDto } from './dto/media-term.dto';
import { MediaTermsService } from './media-terms.service';
import { created } from '../common/http/public-urls';

@ApiTags('Media')
@ApiKeyAuth()
@ApiParam({ name: 'siteName', example: 'demo' })
@Controller('api/v2/sites/:siteName/media/tags')
export class MediaTagsController {
  constructor(private readonly terms: MediaTermsService) {}

  @Get()
  @ApiOperation({ summary: 'List tags', description: 'Oldest first.' })
  @ApiOkResponse({ type: PageDto(MediaTagResponseDto) })
  @ApiProblems(400, 401, 404)
  async list(@CurrentSite() site: SiteContext, @Query() query: CursorQueryDto): Promise<Page<MediaTagResponseDto>> {
    return mapPage(await this.terms.list('tag', site, query), toMediaTermResponse);
  }

  @Post()
  @ApiOperation({
    summary: 'Create tag',
    description: 'The slug defaults to one made from the name; it is unique in the site.',
  })
  @ApiCreatedResponse({ type: MediaTagResponseDto })
  @ApiProblems(400, 401, 404, 409)
  async create(
    @CurrentSite() site: SiteContext,
    @Body() dto: CreateMediaTermDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<MediaTagResponseDto> {
    const term = await this.terms.create('tag', site, dto);
    created(res, `/api/v2/sites/${site.name}/media/tags/${term.id}`);
    return toMediaTermResponse(term);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get tag' })
  @ApiOkResponse({ type: MediaTagResponseDto })
  @ApiProblems(400, 401, 404)
  async get(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<MediaTagResponseDto> {
    return toMediaTermResponse(await this.terms.get('tag', site, id));
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Update tag' })
  @ApiOkResponse({ type: MediaTagResponseDto })
  @ApiProblems(400, 401, 404, 409)
  async update(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateMediaTermDto,
  ): Promise<MediaTagResponseDto> {
    return toMediaTermResponse(await this.terms.update('tag', site, id, dto));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete tag', description: 'Media items keep existing; they lose this tag.' })
  @ApiNoContentResponse()
  @ApiProblems(400, 401, 404)
  async remove(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<void> {
    await this.terms.remove('tag', site, id);
  }
}
