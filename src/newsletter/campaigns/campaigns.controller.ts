import { Body, Delete, Get, Headers, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentSite } from '../../common/auth/decorators';
import { ETAG_HEADER, setVersionEtag } from '../../common/http/etag';
import { SiteIdParamDto } from '../../common/http/params';
import { created } from '../../common/http/public-urls';
import { ApiController, Route } from '../../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../../common/pagination/page';
import { SiteContext } from '../../common/tenancy/site-context';
import { CampaignsService } from './campaigns.service';
import {
  CampaignIdOrSlugParamDto,
  CampaignQueryDto,
  CampaignResponseDto,
  CampaignTestSendDto,
  CampaignTestSendResponseDto,
  CampaignWithStats,
  CreateCampaignDto,
  toCampaignResponse,
  UpdateCampaignDto,
} from '../dto/campaign.dto';

function withEtag(res: Response, c: CampaignWithStats): CampaignResponseDto {
  setVersionEtag(res, c.campaign);
  return toCampaignResponse(c);
}

@ApiController('api/v2/sites/:siteName/newsletter/campaigns', { tag: 'Newsletter', permissions: 'newsletter' })
export class CampaignsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'List campaigns',
    description: 'Newest first, keyset-paginated; filter by status.',
    ok: PageDto(CampaignResponseDto),
  })
  async listNewsletterCampaigns(
    @CurrentSite() site: SiteContext,
    @Query() query: CampaignQueryDto,
  ): Promise<Page<CampaignResponseDto>> {
    return mapPage(await this.campaigns.list(site, query), toCampaignResponse);
  }

  @Post()
  @Route({
    auth: 'key',
    summary: 'Create a campaign',
    description: 'A draft. Its subject, preview text and content are Liquid, checked here (a syntax error is a 400).',
    created: { type: CampaignResponseDto, headers: ETAG_HEADER },
  })
  async createNewsletterCampaign(
    @CurrentSite() site: SiteContext,
    @Body() dto: CreateCampaignDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CampaignResponseDto> {
    const made = await this.campaigns.create(site, dto);
    created(res, `/api/v2/sites/${site.name}/newsletter/campaigns/${made.campaign.id}`);
    return withEtag(res, made);
  }

  @Get(':id')
  @Route({
    auth: 'key',
    summary: 'Get a campaign by id or slug',
    ok: { type: CampaignResponseDto, headers: ETAG_HEADER },
  })
  async getNewsletterCampaign(
    @CurrentSite() site: SiteContext,
    @Param() { id }: CampaignIdOrSlugParamDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CampaignResponseDto> {
    return withEtag(res, await this.campaigns.get(site, id));
  }

  @Patch(':id')
  @Route({
    auth: 'key',
    summary: 'Update a campaign',
    description:
      'Fields left out stay as they are; content changes only while `draft`, `scheduled` or `paused` (409). ' +
      '`status` moves it (API.md §5): `scheduled` with `scheduledAt` (absent or past: now) starts the send at ' +
      'that time, `draft` takes a scheduled one back, `paused` holds a send, `sending` resumes it, `canceled` ' +
      'ends a draft, scheduled or paused one; other moves are a 409 and nothing changes. With If-Match, a stale ' +
      'ETag is a 412.',
    headers: [{ name: 'If-Match', required: false, description: 'ETag from the last read' }],
    ok: { type: CampaignResponseDto, headers: ETAG_HEADER },
    problems: [409, 412],
  })
  async updateNewsletterCampaign(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateCampaignDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CampaignResponseDto> {
    return withEtag(res, await this.campaigns.update(site, id, dto, { ifMatch }));
  }

  @Delete(':id')
  @Route({
    auth: 'key',
    summary: 'Delete a campaign',
    description: 'With its recipients, tracking data and counters. A send in progress: pause it first (409).',
    noContent: true,
    problems: [409],
  })
  async deleteNewsletterCampaign(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<void> {
    await this.campaigns.remove(site, id);
  }

  @Post(':id/test-send')
  @Route({
    auth: 'key',
    summary: 'Send a test copy of a campaign (admin)',
    cost: 'outbound',
    description:
      'Renders the campaign as a subscriber without name or attributes would get it, with `[Test]` before the ' +
      'subject, and mails it to 1 to 5 addresses now. Its links are not tracked and it carries no ' +
      'List-Unsubscribe; nothing is counted. Works in any status.',
    ok: CampaignTestSendResponseDto,
    admin: true,
  })
  async testSendNewsletterCampaign(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: CampaignTestSendDto,
  ): Promise<CampaignTestSendResponseDto> {
    return { queued: await this.campaigns.testSend(site, id, dto.emails) };
  }
}
