import { Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentPrincipal, CurrentSite } from '../common/auth/decorators';
import { Principal } from '../common/auth/principal';
import { SiteIdParamDto } from '../common/http/params';
import { CursorQueryDto, mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { setVersionEtag } from '../common/http/etag';
import { RevisionParamDto } from './dto/content.dto';
import { ContentResponseDto, toContentResponse } from './dto/content-response.dto';
import { RevisionResponseDto, RevisionSummaryDto, toRevisionResponse, toRevisionSummary } from './dto/revision.dto';
import { RevisionsService } from './revisions.service';
import { ApiController, Route } from '../common/http/route.decorator';

@ApiController('api/v2/sites/:siteName/content/:id/revisions', { tag: 'Content', permissions: 'content' })
export class ContentRevisionsController {
  constructor(private readonly revisions: RevisionsService) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'List revisions',
    description: 'Newest first, without the snapshots.',
    ok: PageDto(RevisionSummaryDto),
  })
  async listContentRevisions(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Query() query: CursorQueryDto,
  ): Promise<Page<RevisionSummaryDto>> {
    return mapPage(await this.revisions.list(site, id, query), toRevisionSummary);
  }

  @Get(':revisionId')
  @Route({
    auth: 'key',
    summary: 'Get a revision',
    description: 'With the full snapshot of the item after that change.',
    ok: RevisionResponseDto,
  })
  async getContentRevision(
    @CurrentSite() site: SiteContext,
    @Param() { id, revisionId }: RevisionParamDto,
  ): Promise<RevisionResponseDto> {
    return toRevisionResponse(await this.revisions.get(site, id, revisionId));
  }

  @Post(':revisionId/restore')
  @Route({
    auth: 'key',
    summary: 'Restore a revision',
    description: 'Brings back its fields (not the status) as a new revision.',
    ok: ContentResponseDto,
  })
  async restoreContentRevision(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { id, revisionId }: RevisionParamDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ContentResponseDto> {
    const item = await this.revisions.restore(site, principal, id, revisionId);
    setVersionEtag(res, item);
    return toContentResponse(item);
  }
}
