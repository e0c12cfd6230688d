import { Body, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentKey } from '../common/auth/decorators';
import { KeyPrincipal } from '../common/auth/principal';
import { CursorQueryDto, mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteNameParamDto } from '../common/http/params';
import { CreateSiteDto, SiteResponseDto, toSiteResponse, UpdateSiteDto } from './dto/site.dto';
import { SitesService } from './sites.service';
import { created } from '../common/http/public-urls';
import { ApiController, Route } from '../common/http/route.decorator';

/** Admin routes outside the interface: create and list the account's sites. */
@ApiController('api/v2/sites', { tag: 'Admin: sites', permissions: 'sites' })
export class SitesController {
  constructor(private readonly sites: SitesService) {}

  @Post()
  @Route({
    auth: 'account-key',
    summary: 'Create a site (admin)',
    created: SiteResponseDto,
    admin: true,
  })
  async createSite(
    @CurrentKey() key: KeyPrincipal,
    @Body() dto: CreateSiteDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SiteResponseDto> {
    const site = await this.sites.create(key, dto);
    created(res, `/api/v2/sites/${site.name}`);
    return toSiteResponse(site);
  }

  @Get()
  @Route({
    auth: 'key',
    summary: 'List sites (admin)',
    description: 'The sites of the account that this key may reach, oldest first.',
    ok: PageDto(SiteResponseDto),
    admin: true,
  })
  async listSites(@CurrentKey() key: KeyPrincipal, @Query() query: CursorQueryDto): Promise<Page<SiteResponseDto>> {
    return mapPage(await this.sites.list(key, query), toSiteResponse);
  }

  @Get(':siteName')
  @Route({ auth: 'key', summary: 'Get a site (admin)', ok: SiteResponseDto, admin: true })
  async getSite(@CurrentKey() key: KeyPrincipal, @Param() { siteName }: SiteNameParamDto): Promise<SiteResponseDto> {
    return toSiteResponse(await this.sites.get(key, siteName));
  }

  @Patch(':siteName')
  @Route({
    auth: 'key',
    summary: 'Update a site: title and settings (admin)',
    description:
      'Settings merge section by section: a field left out stays, null clears it (the configuration applies again). ' +
      "`settings.email` is the sender of the site's mail, `settings.publicBaseUrl` the origin of its links.",
    ok: SiteResponseDto,
    admin: true,
  })
  async updateSite(
    @CurrentKey() key: KeyPrincipal,
    @Param() { siteName }: SiteNameParamDto,
    @Body() dto: UpdateSiteDto,
  ): Promise<SiteResponseDto> {
    return toSiteResponse(await this.sites.update(key, siteName, dto));
  }
}
