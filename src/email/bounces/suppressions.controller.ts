import { Body, Delete, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentSite } from '../../common/auth/decorators';
import { SiteIdParamDto } from '../../common/http/params';
import { created } from '../../common/http/public-urls';
import { ApiController, Route } from '../../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../../common/pagination/page';
import { SiteContext } from '../../common/tenancy/site-context';
import {
  CreateSuppressionDto,
  LiftSuppressionQueryDto,
  SuppressionQueryDto,
  SuppressionResponseDto,
  toSuppressionResponse,
} from '../dto/suppression.dto';
import { SuppressionsService } from './suppressions.service';

/** Suppressed addresses of a site (docs/deliverability.md): operator routes, outside the interface. */
@ApiController('api/v2/sites/:siteName/email/suppressions', { tag: 'Email', permissions: 'email' })
export class SuppressionsController {
  constructor(private readonly suppressions: SuppressionsService) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'List suppressed addresses (admin)',
    description:
      'Addresses mail no longer goes to: `bounced`, `complained` or `manual`. Newest first, keyset-paginated; ' +
      'filter by `reason` or one `email`.',
    ok: PageDto(SuppressionResponseDto),
    admin: true,
  })
  async listSuppressions(
    @CurrentSite() site: SiteContext,
    @Query() query: SuppressionQueryDto,
  ): Promise<Page<SuppressionResponseDto>> {
    return mapPage(await this.suppressions.list(site, query), toSuppressionResponse);
  }

  @Get(':id')
  @Route({ auth: 'key', summary: 'Get a suppressed address (admin)', ok: SuppressionResponseDto, admin: true })
  async getSuppression(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
  ): Promise<SuppressionResponseDto> {
    return toSuppressionResponse(await this.suppressions.get(site, id));
  }

  @Post()
  @Route({
    auth: 'key',
    summary: 'Suppress an address (admin)',
    description:
      'As `manual`, with an optional note: mail of the site to it is recorded failed and not sent (sign-in codes ' +
      'still go), and its newsletter subscription becomes `suppressed` and leaves every list. An address already ' +
      'suppressed is a 409 `already_suppressed` naming its entry, which stays as it is.',
    created: SuppressionResponseDto,
    admin: true,
  })
  async createSuppression(
    @CurrentSite() site: SiteContext,
    @Body() dto: CreateSuppressionDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SuppressionResponseDto> {
    const entry = await this.suppressions.create(site, dto);
    created(res, `/api/v2/sites/${site.name}/email/suppressions/${entry.id}`);
    return toSuppressionResponse(entry);
  }

  @Delete(':id')
  @Route({
    auth: 'key',
    summary: 'Lift a suppression (admin)',
    description:
      'Mail goes to the address again, and a `bounced` or `suppressed` newsletter subscription becomes ' +
      '`deliverable` (its lists stay as they are). `reason` is kept in the `email.suppression.lifted` event. ' +
      'A complaint is a 409 `suppression_complained`: only the person lifts it, by subscribing again and confirming.',
    noContent: 'Lifted',
    problems: [409],
    admin: true,
  })
  async deleteSuppression(
    @CurrentSite() site: SiteContext,
    // Before the id: Nest validates a handler's arguments last to first, and a bad id is named first.
    @Query() { reason }: LiftSuppressionQueryDto,
    @Param() { id }: SiteIdParamDto,
  ): Promise<void> {
    await this.suppressions.lift(site, id, reason);
  }
}
