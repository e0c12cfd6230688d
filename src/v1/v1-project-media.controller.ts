import { Body, Delete, Param, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { CurrentSite } from '../common/auth/decorators';
import { SiteContext } from '../common/tenancy/site-context';
import { MediaConfig } from '../media/media.config';
import { MediaUploadService } from '../media/media-upload.service';
import { MediaService } from '../media/media.service';
import { uploadFormSchema } from '../common/input/form-fields';
import { V1_TEXT_FIELDS, v1ProjectUploadForm, V1ProjectMediaDeleteDto, V1ProjectParamsDto } from './dto/v1-media.dto';
import { ApiController, Route } from '../common/http/route.decorator';

/**
 * Project media: organization = account, project = site; the
 * guard answers 404 for a project of another account. Files become media items of the site;
 * DELETE takes their storage keys (docs/media.md).
 */
@ApiController('v1/project/:organization_id/:project_id/media', { tag: 'v1 legacy', permissions: 'media' })
export class V1ProjectMediaController {
  constructor(
    private readonly media: MediaService,
    private readonly uploads: MediaUploadService,
    private readonly config: MediaConfig,
  ) {}

  @Post()
  @Route({
    auth: 'legacy-key',
    summary: 'Upload project media (v1)',
    cost: 'upload',
    description:
      "multipart/form-data with one or several `file` parts. Keys are generated; they appear in v2 media responses (`key`) and in each file's URL.",
    body: { upload: uploadFormSchema('file', V1_TEXT_FIELDS, true) },
    noContent: 'Stored',
  })
  async uploadV1ProjectMedia(
    @CurrentSite() site: SiteContext,
    @Param() _params: V1ProjectParamsDto,
    @Req() req: Request,
  ): Promise<void> {
    await this.uploads.upload(site, req, v1ProjectUploadForm(this.config.MEDIA_MAX_FILES));
  }

  @Delete()
  @Route({
    auth: 'legacy-key',
    summary: 'Delete project media (v1)',
    description: "Deletes the project's media stored under these keys (with thumbnails); unknown keys are ignored.",
    noContent: 'Deleted',
  })
  async deleteV1ProjectMedia(
    @CurrentSite() site: SiteContext,
    @Param() _params: V1ProjectParamsDto,
    @Body() dto: V1ProjectMediaDeleteDto,
  ): Promise<void> {
    await this.media.removeByKeys(site, dto.keys);
  }
}
