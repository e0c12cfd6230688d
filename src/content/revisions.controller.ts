import { Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiKeyAuth, CurrentPrincipal, CurrentSite } from '../common/auth/decorators';
import { Principal } from '../common/auth/principal';
import { ApiProblems } from '../common/errors/api-problems.decorator';
import { SiteIdParamDto } from '../common/http/params';
import { CursorQueryDto, mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { setContentEtag } from './content-etag';
import { RevisionParamDto } from './dto/content.dto';
import { ContentResponseDto, toContentResponse } from './dto/content-response.dto';
import { RevisionResponseDto, RevisionSummaryDto, toRevisionResponse, toRevisionSummary } from './dto/revision.dto';
import { RevisionsService } from './revisions.service';

@ApiTags('Content')
@ApiKeyAuth()
@Controller('api/v2/sites/:siteName/content/:id/revisions')
export class RevisionsController {
  constructor(private readonly revisions: RevisionsService) {}

  @Get()
  @ApiOperation({ summary: 'List revisions', description: 'Newest first, without the snapshots.' })
  @ApiOkResponse({ type: PageDto(RevisionSummaryDto) })
  @ApiProblems(400, 401, 404)
  async list(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Query() query: CursorQueryDto,
  ): Promise<Page<RevisionSummaryDto>> {
    return mapPage(await this.revisions.list(site, id, query), toRevisionSummary);
  }

  @Get(':revisionId')
  @ApiOperation({ summary: 'Get a revision', description: 'With the full snapshot of the item after that change.' })
  @ApiOkResponse({ type: RevisionResponseDto })
  @ApiProblems(400, 401, 404)
  async get(
    @CurrentSite() site: SiteContext,
    @Param() { id, revisionId }: RevisionParamDto,
  ): Promise<RevisionResponseDto> {
    return toRevisionResponse(await this.revisions.get(site, id, revisionId));
  }

  @Post(':revisionId/restore')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Restore a revision',
    description: 'Brings back its fields (not the status) as a new revision.',
  })
  @ApiOkResponse({ type: ContentResponseDto })
  @ApiProblems(400, 401, 404, 409)
  async restore(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { id, revisionId }: RevisionParamDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ContentResponseDto> {
    const item = await this.revisions.restore(site, principal, id, revisionId);
    setContentEtag(res, item);
    return toContentResponse(item);
  }
}
