import { Body, Delete, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentPrincipal, CurrentSite } from '../common/auth/decorators';
import { canSeeDrafts, Principal } from '../common/auth/principal';
import { SiteIdParamDto } from '../common/http/params';
import { created } from '../common/http/public-urls';
import { ApiController, Route } from '../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import {
  CreateSampleThingDto,
  SampleThingIdOrSlugParamDto,
  SampleThingQueryDto,
  SampleThingResponseDto,
  toSampleThingResponse,
  UpdateSampleThingDto,
} from './dto/sample-thing.dto';
import { SampleThingsService } from './sample-things.service';

@ApiController('api/v2/sites/:siteName/sample-things', { tag: 'Sample things', permissions: 'sample-things' })
export class SampleThingsController {
  constructor(private readonly things: SampleThingsService) {}

  @Get()
  @Route({
    auth: 'optional-key',
    summary: 'List sample things',
    description: 'Newest first, keyset-paginated. Without a key: the published ones only.',
    ok: PageDto(SampleThingResponseDto),
  })
  async listSampleThings(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Query() query: SampleThingQueryDto,
  ): Promise<Page<SampleThingResponseDto>> {
    return mapPage(await this.things.list(site, query, canSeeDrafts(principal)), toSampleThingResponse);
  }

  @Post()
  @Route({
    auth: 'key',
    summary: 'Create a sample thing',
    description: 'The slug is made from the title when absent.',
    created: SampleThingResponseDto,
  })
  async createSampleThing(
    @CurrentSite() site: SiteContext,
    @Body() dto: CreateSampleThingDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SampleThingResponseDto> {
    const thing = await this.things.create(site, dto);
    created(res, `/api/v2/sites/${site.name}/sample-things/${thing.id}`);
    return toSampleThingResponse(thing);
  }

  @Get(':id')
  @Route({
    auth: 'optional-key',
    summary: 'Get a sample thing',
    description: 'By id or slug. Without a key a draft is a 404.',
    ok: SampleThingResponseDto,
  })
  async getSampleThing(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: SampleThingIdOrSlugParamDto,
  ): Promise<SampleThingResponseDto> {
    return toSampleThingResponse(await this.things.get(site, id, canSeeDrafts(principal)));
  }

  @Patch(':id')
  @Route({ auth: 'key', summary: 'Update a sample thing', ok: SampleThingResponseDto, problems: [409] })
  async updateSampleThing(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateSampleThingDto,
  ): Promise<SampleThingResponseDto> {
    return toSampleThingResponse(await this.things.update(site, id, dto));
  }

  @Delete(':id')
  @Route({ auth: 'key', summary: 'Delete a sample thing', noContent: true })
  async deleteSampleThing(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<void> {
    await this.things.remove(site, id);
  }
}
