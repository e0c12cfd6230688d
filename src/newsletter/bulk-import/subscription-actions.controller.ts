import { Body, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CurrentSite } from '../../common/auth/decorators';
import { SiteIdParamDto } from '../../common/http/params';
import { ApiController, Route } from '../../common/http/route.decorator';
import { SiteContext } from '../../common/tenancy/site-context';
import { BulkService } from './bulk.service';
import { BulkDto, BulkResultDto, SyncDto, SyncResultDto } from '../dto/bulk.dto';
import { IMPORT_FORM_SCHEMA, ImportResponseDto, toImportResponse } from '../dto/import.dto';
import { ImportService } from './import.service';

/** Mass writes over a site's audience: bulk actions, import and sync. */
@ApiController('api/v2/sites/:siteName/newsletter/subscriptions', { tag: 'Newsletter', permissions: 'newsletter' })
export class SubscriptionActionsController {
  constructor(
    private readonly bulkService: BulkService,
    private readonly imports: ImportService,
  ) {}

  @Post('bulk')
  @Route({
    auth: 'key',
    summary: 'Bulk action',
    cost: 'import',
    description:
      'Unsubscribes, deletes, sets the deliverability of, adds to or removes from lists the subscriptions named ' +
      'by `ids` or matched by `filter` (the list route’s filters), one transaction per batch of 1,000, and ' +
      'answers counts. Never subscribes back an address that left a list, complained or is suppressed; records ' +
      'no per-subscription event.',
    ok: BulkResultDto,
    bodyExample: { action: 'add_to_lists', ids: [1], listIds: [1], consent: false, reason: 'Cleanup of 2026' },
    idempotent: true,
  })
  async bulkSubscriptions(@CurrentSite() site: SiteContext, @Body() dto: BulkDto): Promise<BulkResultDto> {
    return this.bulkService.bulk(site, dto);
  }

  @Post('import')
  @Route({
    auth: 'key',
    summary: 'Import',
    cost: 'import',
    description:
      'Upserts subscribers from a CSV (streamed; a header row, UTF-8 with or without BOM; `columns` maps headers) ' +
      'or a JSON array, by address. Mode `subscribe` joins `listIds` (`active` with `consent`, else `pending`, no ' +
      'mail); mode `blocklist` suppresses the addresses. Never subscribes back an address that left a list, ' +
      'complained or is suppressed. Up to NEWSLETTER_IMPORT_SYNC_ROWS rows answer at once (200) with the counts ' +
      'and the invalid rows by row number; larger imports answer 202 with the import, to follow at ' +
      '`GET …/newsletter/imports/{id}`. `Idempotency-Key` replays the first answer (the key names the upload).',
    ok: ImportResponseDto,
    accepted: { type: ImportResponseDto, description: 'Queued: follow it at GET …/newsletter/imports/{id}' },
    body: { upload: IMPORT_FORM_SCHEMA },
    idempotent: true,
  })
  async importSubscriptions(
    @CurrentSite() site: SiteContext,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ImportResponseDto> {
    const started = await this.imports.start(site, req);
    res.status(started.queued ? 202 : 200);
    return toImportResponse(started.import);
  }

  @Post('sync')
  @Route({
    auth: 'key',
    summary: 'Sync a list',
    cost: 'import',
    description:
      'Makes the list’s members exactly `emails` (and, with `fromUsers`, the site users whose ' +
      '`metadata.newsletter` is true): the missing join (`active` with `consent`, else `pending`, no mail), the ' +
      'others are unsubscribed from this list. Addresses that left the list, complained or are suppressed are ' +
      'skipped. Running it again with the same set changes nothing.',
    ok: SyncResultDto,
    idempotent: true,
  })
  async syncSubscriptions(@CurrentSite() site: SiteContext, @Body() dto: SyncDto): Promise<SyncResultDto> {
    return this.bulkService.sync(site, dto);
  }
}

/** An import's status resource (an operator route beside the interface). */
@ApiController('api/v2/sites/:siteName/newsletter/imports', { tag: 'Newsletter', permissions: 'newsletter' })
export class NewsletterImportsController {
  constructor(private readonly imports: ImportService) {}

  @Get(':id')
  @Route({
    auth: 'key',
    summary: 'Get an import (admin)',
    description: 'Progress of a queued import: rows read and done, created, updated, skipped, and the bad-row report.',
    ok: ImportResponseDto,
    admin: true,
  })
  async getNewsletterImport(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
  ): Promise<ImportResponseDto> {
    return toImportResponse(await this.imports.get(site, id));
  }
}
