import { Body, Delete, Get, Headers, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentPrincipal, CurrentSite } from '../common/auth/decorators';
import { Principal } from '../common/auth/principal';
import { SiteIdParamDto } from '../common/http/params';
import { mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { ETAG_HEADER, setVersionEtag } from '../common/http/etag';
import { ContentService } from './content.service';
import { ContentResponseDto, ContentSummaryDto, toContentResponse, toContentSummary } from './dto/content-response.dto';
import {
  ContentQueryDto,
  CreateContentDto,
  IdOrSlugParamDto,
  PublishContentDto,
  UpdateContentDto,
} from './dto/content.dto';
import { ContentItemEntity } from './entities/content-item.entity';
import { created } from '../common/http/public-urls';
import { ApiController, Route } from '../common/http/route.decorator';

/** Sets the ETag and maps the item. */
function withEtag(res: Response, item: ContentItemEntity): ContentResponseDto {
  setVersionEtag(res, item);
  return toContentResponse(item);
}

@ApiController('api/v2/sites/:siteName/content', { tag: 'Content', permissions: 'content' })
export class ContentController {
  constructor(private readonly content: ContentService) {}

  @Get()
  @Route({
    auth: 'optional-key',
    summary: 'List content',
    description: 'Newest first, keyset-paginated. Without a key only published items are listed.',
    ok: PageDto(ContentSummaryDto),
  })
  async listContent(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Query() query: ContentQueryDto,
  ): Promise<Page<ContentSummaryDto>> {
    return mapPage(await this.content.list(site, principal, query), toContentSummary);
  }

  @Post()
  @Route({
    auth: 'key',
    summary: 'Create content',
    description: 'The slug is generated from the title when absent. Writes revision 1.',
    created: { type: ContentResponseDto, headers: ETAG_HEADER },
  })
  async createContent(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateContentDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ContentResponseDto> {
    const item = await this.content.create(site, principal, dto);
    created(res, `/api/v2/sites/${site.name}/content/${item.id}`);
    return withEtag(res, item);
  }

  @Get(':id')
  @Route({
    auth: 'optional-key',
    summary: 'Get content by id or slug',
    description: 'All digits is an id. Without a key, drafts are not found.',
    ok: { type: ContentResponseDto, headers: ETAG_HEADER },
  })
  async getContent(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: IdOrSlugParamDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ContentResponseDto> {
    return withEtag(res, await this.content.get(site, principal, id));
  }

  @Patch(':id')
  @Route({
    auth: 'key',
    summary: 'Update content',
    description: 'Partial update; writes a revision. With If-Match, a stale ETag is a 412.',
    headers: [{ name: 'If-Match', required: false, description: 'ETag from the last read' }],
    ok: { type: ContentResponseDto, headers: ETAG_HEADER },
    problems: [409, 412],
  })
  async updateContent(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateContentDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ContentResponseDto> {
    return withEtag(res, await this.content.update(site, principal, id, dto, { ifMatch }));
  }

  @Delete(':id')
  @Route({
    auth: 'key',
    summary: 'Delete content',
    description: 'Also removes its revisions and its places in collections.',
    noContent: true,
  })
  async deleteContent(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<void> {
    await this.content.remove(site, id);
  }

  @Post(':id/publish')
  @Route({
    auth: 'key',
    summary: 'Publish content',
    description: 'Now, or at a future publishAt (status scheduled until then).',
    body: { optional: PublishContentDto },
    ok: { type: ContentResponseDto, headers: ETAG_HEADER },
  })
  async publishContent(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: PublishContentDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ContentResponseDto> {
    return withEtag(res, await this.content.publish(site, principal, id, dto.publishAt));
  }

  @Post(':id/unpublish')
  @Route({
    auth: 'key',
    summary: 'Unpublish content',
    description: 'Back to draft; cancels a schedule.',
    ok: { type: ContentResponseDto, headers: ETAG_HEADER },
  })
  async unpublishContent(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: SiteIdParamDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ContentResponseDto> {
    return withEtag(res, await this.content.unpublish(site, principal, id));
  }
}
