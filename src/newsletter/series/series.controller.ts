import { Body, Delete, Get, Headers, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentSite } from '../../common/auth/decorators';
import { ETAG_HEADER, setVersionEtag } from '../../common/http/etag';
import { SiteIdParamDto } from '../../common/http/params';
import { created } from '../../common/http/public-urls';
import { ApiController, Route } from '../../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../../common/pagination/page';
import { SiteContext } from '../../common/tenancy/site-context';
import {
  CreateSeriesDto,
  SeriesQueryDto,
  SeriesResponseDto,
  SeriesView,
  toSeriesResponse,
  UpdateSeriesDto,
} from '../dto/series.dto';
import { SeriesService } from './series.service';

function withEtag(res: Response, view: SeriesView): SeriesResponseDto {
  setVersionEtag(res, view.series);
  return toSeriesResponse(view);
}

@ApiController('api/v2/sites/:siteName/newsletter/series', { tag: 'Newsletter', permissions: 'newsletter' })
export class NewsletterSeriesController {
  constructor(private readonly series: SeriesService) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'List newsletter series',
    description: 'Newest first, keyset-paginated, each with its steps and its enrollments by status.',
    ok: PageDto(SeriesResponseDto),
  })
  async listNewsletterSeries(
    @CurrentSite() site: SiteContext,
    @Query() query: SeriesQueryDto,
  ): Promise<Page<SeriesResponseDto>> {
    return mapPage(await this.series.list(site, query), toSeriesResponse);
  }

  @Post()
  @Route({
    auth: 'key',
    summary: 'Create a newsletter series',
    description:
      'A drip sequence: people who become active on one of its lists from now on are enrolled once and receive ' +
      'its steps in order, each `delaySeconds` after the previous one.',
    created: { type: SeriesResponseDto, headers: ETAG_HEADER },
    // A step's `id` names a step to keep on update: a new series' steps have none.
    bodyExample: {
      name: 'Onboarding',
      listIds: [1],
      steps: [
        {
          delaySeconds: 86400,
          subject: 'Welcome aboard',
          previewText: 'What to expect from us',
          html: '<h1>Hello</h1><p>Thanks for joining.</p>',
          templateId: 1,
        },
      ],
    },
  })
  async createNewsletterSeries(
    @CurrentSite() site: SiteContext,
    @Body() dto: CreateSeriesDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SeriesResponseDto> {
    const view = await this.series.create(site, dto);
    created(res, `/api/v2/sites/${site.name}/newsletter/series/${view.series.id}`);
    return withEtag(res, view);
  }

  @Get(':id')
  @Route({
    auth: 'key',
    summary: 'Get a newsletter series',
    ok: { type: SeriesResponseDto, headers: ETAG_HEADER },
  })
  async getNewsletterSeries(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SeriesResponseDto> {
    return withEtag(res, await this.series.get(site, id));
  }

  @Patch(':id')
  @Route({
    auth: 'key',
    summary: 'Update a newsletter series',
    description:
      'Fields left out stay as they are. `status` pauses (`active → paused`: steps are held) or resumes ' +
      '(`paused → active`: held steps that fell due go out at once); any other move is a 409. `steps` replaces ' +
      'the steps; people already in the series get only the steps they have not received. With If-Match, a ' +
      'stale ETag is a 412.',
    headers: [{ name: 'If-Match', required: false, description: 'ETag from the last read' }],
    ok: { type: SeriesResponseDto, headers: ETAG_HEADER },
    problems: [409, 412],
  })
  async updateNewsletterSeries(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateSeriesDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SeriesResponseDto> {
    return withEtag(res, await this.series.update(site, id, dto, ifMatch));
  }

  @Delete(':id')
  @Route({
    auth: 'key',
    summary: 'Delete a newsletter series',
    description: 'Its steps and enrollments go with it: nobody receives its steps any more.',
    noContent: true,
  })
  async deleteNewsletterSeries(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<void> {
    await this.series.remove(site, id);
  }
}
