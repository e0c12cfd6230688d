import { Get, Param, Post, Query } from '@nestjs/common';
import { CurrentSite } from '../common/auth/decorators';
import { SiteIdParamDto } from '../common/http/params';
import { ApiController, Route } from '../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import {
  toWebhookDeliveryResponse,
  toWebhookDeliverySummary,
  WebhookDeliveryParamDto,
  WebhookDeliveryQueryDto,
  WebhookDeliveryResponseDto,
  WebhookDeliverySummaryDto,
} from './dto/webhook-delivery.dto';
import { WebhookDeliveriesService } from './webhook-deliveries.service';

/** The delivery log of an endpoint, and retrying one (operator routes beside the interface). */
@ApiController('api/v2/sites/:siteName/webhooks/:id/deliveries', { tag: 'Webhooks', permissions: 'webhooks' })
export class WebhookDeliveriesController {
  constructor(private readonly deliveries: WebhookDeliveriesService) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'List the deliveries of a webhook endpoint (admin)',
    description: 'Newest first, keyset-paginated; filter by status (pending, succeeded, failed).',
    ok: PageDto(WebhookDeliverySummaryDto),
    admin: true,
  })
  async listWebhookDeliveries(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Query() query: WebhookDeliveryQueryDto,
  ): Promise<Page<WebhookDeliverySummaryDto>> {
    return mapPage(await this.deliveries.list(site, id, query), toWebhookDeliverySummary);
  }

  @Get(':deliveryId')
  @Route({
    auth: 'key',
    summary: 'Get a delivery of a webhook endpoint, with its attempts (admin)',
    ok: WebhookDeliveryResponseDto,
    exampleAnswers: {
      status: 404,
      because: 'a fresh start has delivered nothing (the demo endpoint is disabled); POST …/test makes a delivery',
    },
    admin: true,
  })
  async getWebhookDelivery(
    @CurrentSite() site: SiteContext,
    @Param() { id, deliveryId }: WebhookDeliveryParamDto,
  ): Promise<WebhookDeliveryResponseDto> {
    const { delivery, attempts } = await this.deliveries.get(site, id, deliveryId);
    return toWebhookDeliveryResponse(delivery, attempts);
  }

  @Post(':deliveryId/retry')
  @Route({
    auth: 'key',
    summary: 'Retry a delivery of a webhook endpoint (admin)',
    cost: 'outbound',
    description:
      'Sends it again soon, whatever its status, with the same `webhook-id`, and starts a new round of retries. ' +
      'On a disabled endpoint it waits until the endpoint is enabled.',
    accepted: WebhookDeliverySummaryDto,
    admin: true,
    exampleAnswers: {
      status: 404,
      because: 'a fresh start has delivered nothing (the demo endpoint is disabled); POST …/test makes a delivery',
    },
  })
  async retryWebhookDelivery(
    @CurrentSite() site: SiteContext,
    @Param() { id, deliveryId }: WebhookDeliveryParamDto,
  ): Promise<WebhookDeliverySummaryDto> {
    return toWebhookDeliverySummary(await this.deliveries.retry(site, id, deliveryId));
  }
}
