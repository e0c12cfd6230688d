import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AccountAdmin, AdminRoute, ApiKeyAuth, CurrentKey } from '../common/auth/decorators';
import { KeyPrincipal } from '../common/auth/principal';
import { ApiProblems } from '../common/errors/api-problems.decorator';
import { CursorQueryDto, mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteNameParamDto } from '../common/http/params';
import { CreateSiteDto, SiteResponseDto, toSiteResponse } from './dto/site.dto';
import { SitesService } from './sites.service';
import { created } from '../common/http/public-urls';

/** Admin routes outside the interface (API.md §2): create and list the account's sites. */
@ApiTags('Admin: sites')
@AdminRoute()
@ApiKeyAuth()
@Controller('api/v2/sites')
export class SitesController {
  constructor(private readonly sites: SitesService) {}

  @Post()
  @AccountAdmin()
  @ApiOperation({ summary: 'Create a site (admin)' })
  @ApiCreatedResponse({ type: SiteResponseDto })
  @ApiProblems(400, 401, 403, 409)
  async create(
    @CurrentKey() key: KeyPrincipal,
    @Body() dto: CreateSiteDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SiteResponseDto> {
    const site = await this.sites.create(key, dto);
    created(res, `/api/v2/sites/${site.name}`);
    return toSiteResponse(site);
  }

  @Get()
  @ApiOperation({
    summary: 'List sites (admin)',
    description: 'The sites of the account that this key may reach, oldest first.',
  })
  @ApiOkResponse({ type: PageDto(SiteResponseDto) })
  @ApiProblems(400, 401)
  async list(@CurrentKey() key: KeyPrincipal, @Query() query: CursorQueryDto): Promise<Page<SiteResponseDto>> {
    return mapPage(await this.sites.list(key, query), toSiteResponse);
  }

  @Get(':siteName')
  @ApiOperation({ summary: 'Get a site (admin)' })
  @ApiOkResponse({ type: SiteResponseDto })
  @ApiProblems(401, 404)
  async get(@CurrentKey() key: KeyPrincipal, @Param() { siteName }: SiteNameParamDto): Promise<SiteResponseDto> {
    return toSiteResponse(await this.sites.get(key, siteName));
  }
}
