import { created } from '../common/http/public-urls';
import { Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CurrentSite } from '../common/auth/decorators';
import { SiteContext } from '../common/tenancy/site-context';
import { MediaUploadService } from '../media/media-upload.service';
import { MediaService } from '../media/media.service';
import { uploadFormSchema } from '../common/input/form-fields';
import {
  toV1MediaItem,
  V1_TEXT_FIELDS,
  V1_UPLOAD_FORM,
  V1MediaListDto,
  V1MediaListParamsDto,
} from './dto/v1-media.dto';
import { ApiController, Route } from '../common/http/route.decorator';

/** INTERFACE.md §4.1 media routes, over the v2 media services. */
@ApiController('v1/:site_name/media', { tag: 'v1 legacy', permissions: 'media' })
export class V1MediaController {
  constructor(
    private readonly media: MediaService,
    private readonly uploads: MediaUploadService,
  ) {}

  @Post()
  @Route({
    auth: 'legacy-key',
    summary: 'Upload a media file (v1)',
    cost: 'upload',
    description:
      'multipart/form-data with a `file` part. Answers 200 with an empty body; `Location` is the public URL of the file.',
    body: { upload: uploadFormSchema('file', V1_TEXT_FIELDS) },
    ok: {
      description: 'Stored; no body',
      headers: { Location: { description: 'Public URL of the file', schema: { type: 'string' } } },
    },
  })
  async uploadV1Media(
    @CurrentSite() site: SiteContext,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    const [item] = await this.uploads.upload(site, req, V1_UPLOAD_FORM);
    created(res, item.link);
  }

  @Get(':limit/:offset')
  @Route({
    auth: 'legacy-key',
    summary: 'List media (v1)',
    description: 'Newest first, originals and thumbnails; `limit` 1..100, `offset` from 0.',
    ok: V1MediaListDto,
  })
  async listV1Media(
    @CurrentSite() site: SiteContext,
    @Param() { limit, offset }: V1MediaListParamsDto,
  ): Promise<V1MediaListDto> {
    const page = await this.media.listByOffset(site, limit, offset);
    return { data: page.data.map(toV1MediaItem), total: page.total, limit, offset };
  }
}
