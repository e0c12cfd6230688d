import { Body, Delete, Get, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CurrentSite } from '../common/auth/decorators';
import { SiteIdParamDto } from '../common/http/params';
import { mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { MediaQueryDto, MediaResponseDto, toMediaResponse, UpdateMediaDto, V2_UPLOAD_FORM } from './dto/media.dto';
import { MediaUploadService } from './media-upload.service';
import { MediaService } from './media.service';
import { uploadFormSchema } from '../common/input/form-fields';
import { created } from '../common/http/public-urls';
import { ApiController, Route } from '../common/http/route.decorator';

@ApiController('api/v2/sites/:siteName/media', { tag: 'Media', permissions: 'media' })
export class MediaController {
  constructor(
    private readonly media: MediaService,
    private readonly uploads: MediaUploadService,
  ) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'List media',
    publishable: true,
    description: 'Newest first; originals and thumbnails unless `original` says which.',
    ok: PageDto(MediaResponseDto),
  })
  async listMedia(@CurrentSite() site: SiteContext, @Query() query: MediaQueryDto): Promise<Page<MediaResponseDto>> {
    return mapPage(await this.media.list(site, query), toMediaResponse);
  }

  @Post()
  @Route({
    auth: 'key',
    summary: 'Upload a media file',
    cost: 'upload',
    description: 'multipart/form-data with a `file` part. The type is detected from the bytes; images get thumbnails.',
    body: { upload: uploadFormSchema('file', ['title', 'caption', 'description', 'altText']) },
    created: MediaResponseDto,
  })
  async uploadMedia(
    @CurrentSite() site: SiteContext,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<MediaResponseDto> {
    const [item] = await this.uploads.upload(site, req, V2_UPLOAD_FORM);
    created(res, `/api/v2/sites/${site.name}/media/${item.id}`);
    return toMediaResponse(item);
  }

  @Get(':id')
  @Route({ auth: 'key', summary: 'Get media', publishable: true, ok: MediaResponseDto })
  async getMedia(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<MediaResponseDto> {
    return toMediaResponse(await this.media.get(site, id));
  }

  @Patch(':id')
  @Route({
    auth: 'key',
    summary: 'Update media',
    description: 'Text fields; `categoryIds` and `tagIds` replace the assignments.',
    ok: MediaResponseDto,
  })
  async updateMedia(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateMediaDto,
  ): Promise<MediaResponseDto> {
    return toMediaResponse(await this.media.update(site, id, dto));
  }

  @Delete(':id')
  @Route({
    auth: 'key',
    summary: 'Delete media',
    description: 'Removes the item, its thumbnails and their files.',
    noContent: true,
  })
  async deleteMedia(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<void> {
    await this.media.remove(site, id);
  }
}
