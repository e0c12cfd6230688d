import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiSecurity,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { CurrentPrincipal, CurrentSite } from '../common/auth/decorators';
import { Principal } from '../common/auth/principal';
import { ApiProblems } from '../common/errors/api-problems.decorator';
import { SiteContext } from '../common/tenancy/site-context';
import { PagesService } from '../content/pages.service';
import {
  toCreateContentInput,
  toUpdateContentInput,
  toV1Page,
  V1CreatePageDto,
  V1PageDeletedDto,
  V1PageIdParamDto,
  V1PageListDto,
  V1PageListParamsDto,
  V1PageParamDto,
  V1PageResponseDto,
  V1UpdatePageDto,
} from './dto/v1-page.dto';

/** INTERFACE.md §4.1 pages, over the content service (API.md §10). Every success is a 200. */
@ApiTags('v1 legacy')
@ApiSecurity('apiKey')
@ApiParam({ name: 'site_name', example: 'demo' })
@ApiExtraModels(V1PageResponseDto)
@Controller('v1/:site_name/pages')
export class V1PagesController {
  constructor(private readonly pages: PagesService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a page (v1)',
    description: 'Current (title, content, page_type) or older (post_title, post_content, post_type) field names.',
  })
  @ApiOkResponse({ type: V1PageResponseDto })
  @ApiProblems(400, 401, 404, 409)
  async create(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Body() body: V1CreatePageDto,
  ): Promise<V1PageResponseDto> {
    return toV1Page(await this.pages.create(site, principal, toCreateContentInput(body)));
  }

  @Get(':page')
  @ApiOperation({
    summary: 'Get a page by id or slug, or all pages (v1)',
    description: 'Digits: an id. `all`: every page of the site (an array). Otherwise a slug.',
  })
  @ApiParam({ name: 'page', description: 'page_id, post_slug, or `all`' })
  @ApiOkResponse({
    description: 'A page, or an array of pages for `all`',
    schema: {
      oneOf: [
        { $ref: getSchemaPath(V1PageResponseDto) },
        { type: 'array', items: { $ref: getSchemaPath(V1PageResponseDto) } },
      ],
    },
  })
  @ApiProblems(400, 401, 404)
  async get(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { page }: V1PageParamDto,
  ): Promise<V1PageResponseDto | V1PageResponseDto[]> {
    const found = await this.pages.get(site, principal, page);
    return Array.isArray(found) ? found.map(toV1Page) : toV1Page(found);
  }

  @Get(':limit/:offset')
  @ApiOperation({ summary: 'List pages (v1)', description: 'Newest first; `limit` 1..100, `offset` from 0.' })
  @ApiOkResponse({ type: V1PageListDto })
  @ApiProblems(400, 401, 404)
  async list(
    @CurrentSite() site: SiteContext,
    @Param() { limit, offset }: V1PageListParamsDto,
  ): Promise<V1PageListDto> {
    const { pages, total } = await this.pages.list(site, limit, offset);
    return { data: pages.map(toV1Page), total, limit, offset };
  }

  @Put(':page_id')
  @ApiOperation({
    summary: 'Edit a page (v1)',
    description:
      'Fields of the create body, all optional, no slug. `replace_attachments: false` adds to the attachments.',
  })
  @ApiOkResponse({ type: V1PageResponseDto })
  @ApiProblems(400, 401, 404, 409)
  async update(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { page_id }: V1PageIdParamDto,
    @Body() body: V1UpdatePageDto,
  ): Promise<V1PageResponseDto> {
    const input = toUpdateContentInput(body);
    return toV1Page(
      await this.pages.update(site, principal, page_id, input, {
        appendAttachments: body.replace_attachments !== true,
      }),
    );
  }

  @Delete(':page_id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete a page (v1)' })
  @ApiOkResponse({ type: V1PageDeletedDto })
  @ApiProblems(400, 401, 404)
  async remove(@CurrentSite() site: SiteContext, @Param() { page_id }: V1PageIdParamDto): Promise<V1PageDeletedDto> {
    return { deleted: true, page_id: await this.pages.remove(site, page_id) };
  }
}
