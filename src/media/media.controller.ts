import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiKeyAuth, CurrentSite } from '../common/auth/decorators';
import { ApiProblems } from '../common/errors/api-problems.decorator';
import { SiteIdParamDto } from '../common/http/params';
import { mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { MediaQueryDto, MediaResponseDto, toMediaResponse, UpdateMediaDto, V2_UPLOAD_FORM } from './dto/media.dto';
import { MediaUploadService } from './media-upload.service';
import { MediaService } from './media.service';
import { uploadFormSchema } from './upload/form-fields';
import { created } from '../common/http/public-urls';

@ApiTags('Media')
@ApiKeyAuth()
@ApiParam({ name: 'siteName', example: 'demo' })
@Controller('api/v2/sites/:siteName/media')
export class MediaController {
  constructor(
    private readonly media: MediaService,
    private readonly uploads: MediaUploadService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'List media',
    description: 'Newest first; originals and thumbnails unless `original` says which.',
  })
  @ApiOkResponse({ type: PageDto(MediaResponseDto) })
  @ApiProblems(400, 401, 404)
  async list(@CurrentSite() site: SiteContext, @Query() query: MediaQueryDto): Promise<Page<MediaResponseDto>> {
    return mapPage(await this.media.list(site, query), toMediaResponse);
  }

  @Post()
  @ApiOperation({
    summary: 'Upload a media file',
    description: 'multipart/form-data with a `file` part. The type is detected from the bytes; images get thumbnails.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: uploadFormSchema('file', ['title', 'caption', 'description', 'altText']) })
  @ApiCreatedResponse({ type: MediaResponseDto })
  @ApiProblems(400, 401, 404, 413, 415)
  async upload(
    @CurrentSite() site: SiteContext,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<MediaResponseDto> {
    const [item] = await this.uploads.upload(site, req, V2_UPLOAD_FORM);
    created(res, `/api/v2/sites/${site.name}/media/${item.id}`);
    return toMediaResponse(item);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get media' })
  @ApiOkResponse({ type: MediaResponseDto })
  @ApiProblems(400, 401, 404)
  async get(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<MediaResponseDto> {
    return toMediaResponse(await this.media.get(site, id));
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Update media',
    description: 'Text fields; `categoryIds` and `tagIds` replace the assignments.',
  })
  @ApiOkResponse({ type: MediaResponseDto })
  @ApiProblems(400, 401, 404)
  async update(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateMediaDto,
  ): Promise<MediaResponseDto> {
    return toMediaResponse(await this.media.update(site, id, dto));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete media', description: 'Removes the item, its thumbnails and their files.' })
  @ApiNoContentResponse()
  @ApiProblems(400, 401, 404)
  async remove(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<void> {
    await this.media.remove(site, id);
  }
}
