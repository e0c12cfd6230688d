import { Body, Delete, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentSite } from '../common/auth/decorators';
import { SiteIdParamDto } from '../common/http/params';
import { created } from '../common/http/public-urls';
import { ApiController, Route } from '../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { toWebhookTestResult, WebhookTestResultDto } from './dto/webhook-delivery.dto';
import {
  CreateWebhookEndpointDto,
  toWebhookEndpointResponse,
  toWebhookEndpointWithSecret,
  UpdateWebhookEndpointDto,
  WebhookEndpointQueryDto,
  WebhookEndpointResponseDto,
  WebhookEndpointWithSecretDto,
} from './dto/webhook-endpoint.dto';
import { WebhookEndpointsService } from './webhook-endpoints.service';

@ApiController('api/v2/sites/:siteName/webhooks', { tag: 'Webhooks', permissions: 'webhooks' })
export class WebhooksController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'List webhook endpoints',
    description: 'Newest first, keyset-paginated; filter by status.',
    ok: PageDto(WebhookEndpointResponseDto),
  })
  async listWebhooks(
    @CurrentSite() site: SiteContext,
    @Query() query: WebhookEndpointQueryDto,
  ): Promise<Page<WebhookEndpointResponseDto>> {
    return mapPage(await this.endpoints.list(site, query), toWebhookEndpointResponse);
  }

  @Post()
  @Route({
    auth: 'key',
    summary: 'Create a webhook endpoint',
    description:
      'The answer shows the signing secret (`whsec_…`), once. The URL must be https:// and resolve to public ' +
      'addresses only; `eventTypes` name events of docs/events.md, `<prefix>.*` or `*`.',
    created: WebhookEndpointWithSecretDto,
  })
  async createWebhook(
    @CurrentSite() site: SiteContext,
    @Body() dto: CreateWebhookEndpointDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<WebhookEndpointWithSecretDto> {
    const endpoint = await this.endpoints.create(site, dto);
    created(res, `/api/v2/sites/${site.name}/webhooks/${endpoint.id}`);
    return toWebhookEndpointWithSecret(endpoint);
  }

  @Get(':id')
  @Route({ auth: 'key', summary: 'Get a webhook endpoint', ok: WebhookEndpointResponseDto })
  async getWebhook(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
  ): Promise<WebhookEndpointResponseDto> {
    return toWebhookEndpointResponse(await this.endpoints.get(site, id));
  }

  @Patch(':id')
  @Route({
    auth: 'key',
    summary: 'Update a webhook endpoint',
    description:
      'Fields left out stay. `status: "disabled"` stops deliveries (they wait); `status: "enabled"` re-enables ' +
      'an endpoint, also one disabled for failing, and sends what waited.',
    ok: WebhookEndpointResponseDto,
  })
  async updateWebhook(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateWebhookEndpointDto,
  ): Promise<WebhookEndpointResponseDto> {
    return toWebhookEndpointResponse(await this.endpoints.update(site, id, dto));
  }

  @Delete(':id')
  @Route({ auth: 'key', summary: 'Delete a webhook endpoint', description: 'With its delivery log.', noContent: true })
  async deleteWebhook(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<void> {
    await this.endpoints.remove(site, id);
  }

  @Post(':id/test')
  @Route({
    auth: 'key',
    summary: 'Test a webhook endpoint',
    cost: 'outbound',
    description:
      'Sends a signed `webhook.test` event now (enabled or not) and answers the outcome: 200 whatever the ' +
      'endpoint answered, with its status code, time and the start of its answer. Logged as a delivery; not retried.',
    ok: WebhookTestResultDto,
  })
  async testWebhook(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<WebhookTestResultDto> {
    const { deliveryId, result } = await this.endpoints.test(site, id);
    return toWebhookTestResult(deliveryId, result);
  }

  @Post(':id/rotate-secret')
  @Route({
    auth: 'key',
    summary: 'Rotate the signing secret of a webhook endpoint (admin)',
    description:
      'Answers the new secret, once. The previous one keeps signing beside it (two signatures in ' +
      '`webhook-signature`) until `previousSecretExpiresAt`, so receivers can switch without missing an event.',
    ok: WebhookEndpointWithSecretDto,
    admin: true,
  })
  async rotateWebhookSecret(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
  ): Promise<WebhookEndpointWithSecretDto> {
    return toWebhookEndpointWithSecret(await this.endpoints.rotateSecret(site, id));
  }
}
