import { Body, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { ApiExtraModels, getSchemaPath } from '@nestjs/swagger';
import { CurrentPrincipal, CurrentSite } from '../common/auth/decorators';
import { Principal } from '../common/auth/principal';
import { SiteContext } from '../common/tenancy/site-context';
import { V1PagesService } from './v1-pages.service';
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
import { ApiController, Route } from '../common/http/route.decorator';

/** INTERFACE.md §4.1 pages, over the content service. Every success is a 200. */
@ApiExtraModels(V1PageResponseDto)
@ApiController('v1/:site_name/pages', { tag: 'v1 legacy', permissions: 'content' })
export class V1PagesController {
  constructor(private readonly pages: V1PagesService) {}

  @Post()
  @Route({
    auth: 'legacy-key',
    summary: 'Create a page (v1)',
    description: 'Current (title, content, page_type) or older (post_title, post_content, post_type) field names.',
    ok: V1PageResponseDto,
    // One naming only (the two must agree), and no slug: the title's is made free (`about-us-2`),
    // so the example runs again.
    bodyExample: {
      title: 'About us',
      content: '<p>Hello</p>',
      excerpt: 'A short summary',
      page_type: 'page',
      page_status: 'published',
      tags: ['company'],
    },
  })
  async createV1Page(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Body() body: V1CreatePageDto,
  ): Promise<V1PageResponseDto> {
    return toV1Page(await this.pages.create(site, principal, toCreateContentInput(body)));
  }

  @Get(':page_id')
  @Route({
    auth: 'legacy-key',
    summary: 'Get a page by id or slug, or all pages (v1)',
    description: 'Digits: an id. `all`: every page of the site (an array). Otherwise a slug.',
    ok: {
      description: 'A page, or an array of pages for `all`',
      schema: {
        oneOf: [
          { $ref: getSchemaPath(V1PageResponseDto) },
          { type: 'array', items: { $ref: getSchemaPath(V1PageResponseDto) } },
        ],
      },
    },
  })
  async getV1Page(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { page_id }: V1PageParamDto,
  ): Promise<V1PageResponseDto | V1PageResponseDto[]> {
    const found = await this.pages.get(site, principal, page_id);
    return Array.isArray(found) ? found.map(toV1Page) : toV1Page(found);
  }

  @Get(':limit/:offset')
  @Route({
    auth: 'legacy-key',
    summary: 'List pages (v1)',
    description: 'Newest first; `limit` 1..100, `offset` from 0.',
    ok: V1PageListDto,
  })
  async listV1Pages(
    @CurrentSite() site: SiteContext,
    @Param() { limit, offset }: V1PageListParamsDto,
  ): Promise<V1PageListDto> {
    const { pages, total } = await this.pages.list(site, limit, offset);
    return { data: pages.map(toV1Page), total, limit, offset };
  }

  @Put(':page_id')
  @Route({
    auth: 'legacy-key',
    summary: 'Edit a page (v1)',
    description:
      'Fields of the create body, all optional, no slug. `replace_attachments: false` adds to the attachments.',
    ok: V1PageResponseDto,
    problems: [409],
  })
  async updateV1Page(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Param() { page_id }: V1PageIdParamDto,
    @Body() body: V1UpdatePageDto,
  ): Promise<V1PageResponseDto> {
    const input = toUpdateContentInput(body);
    return toV1Page(
      await this.pages.update(site, principal, page_id, input, { append: body.replace_attachments !== true }),
    );
  }

  @Delete(':page_id')
  @Route({
    auth: 'legacy-key',
    summary: 'Delete a page (v1)',
    ok: V1PageDeletedDto,
    // Not the demo's page 1, which the v2 delete example removes: 2 is the create example's.
    params: [{ name: 'page_id', schema: { type: 'integer', minimum: 1, example: 2 } }],
  })
  async deleteV1Page(
    @CurrentSite() site: SiteContext,
    @Param() { page_id }: V1PageIdParamDto,
  ): Promise<V1PageDeletedDto> {
    return { deleted: true, page_id: await this.pages.remove(site, page_id) };
  }
}
