import { Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentSite } from '../common/auth/decorators';
import { ApiProblems } from '../common/errors/api-problems.decorator';
import { SiteContext } from '../common/tenancy/site-context';
import { MediaUploadService } from '../media/media-upload.service';
import { MediaService } from '../media/media.service';
import { uploadFormSchema } from '../media/upload/form-fields';
import {
  toV1MediaItem,
  V1_TEXT_FIELDS,
  V1_UPLOAD_FORM,
  V1MediaListDto,
  V1MediaListParamsDto,
} from './dto/v1-media.dto';

/** INTERFACE.md §4.1 media routes, over the v2 media services (API.md §10). */
@ApiTags('v1 legacy')
@ApiSecurity('apiKey')
@ApiParam({ name: 'site_name', example: 'demo' })
@Controller('v1/:site_name/media')
export class V1MediaController {
  constructor(
    private readonly media: MediaService,
    private readonly uploads: MediaUploadService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Upload a media file (v1)',
    description:
      'multipart/form-data with a `file` part. Answers 200 with an empty body; `Location` is the public URL of the file.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: uploadFormSchema('file', V1_TEXT_FIELDS) })
  @ApiOkResponse({
    description: 'Stored; no body',
    headers: { Location: { description: 'Public URL of the file', schema: { type: 'string' } } },
  })
  @ApiProblems(400, 401, 404, 413, 415)
  async upload(
    @CurrentSite() site: SiteContext,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    const [item] = await this.uploads.upload(site, req, V1_UPLOAD_FORM);
    res.location(item.link);
  }

  @Get(':limit/:offset')
  @ApiOperation({
    summary: 'List media (v1)',
    description: 'Newest first, originals and thumbnails; `limit` 1..100, `offset` from 0.',
  })
  @ApiOkResponse({ type: V1MediaListDto })
  @ApiProblems(400, 401, 404)
  async list(
    @CurrentSite() site: SiteContext,
    @Param() { limit, offset }: V1MediaListParamsDto,
  ): Promise<V1MediaListDto> {
    const page = await this.media.listByOffset(site, limit, offset);
    return { data: page.data.map(toV1MediaItem), total: page.total, limit, offset };
  }
}
