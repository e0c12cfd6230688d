import { Body, Headers, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentSite } from '../common/auth/decorators';
import { ApiController, Route } from '../common/http/route.decorator';
import { RawBody } from '../common/input/request-body';
import { SiteContext } from '../common/tenancy/site-context';
import {
  FulfillmentSecretResponseDto,
  NotificationOutcomeDto,
  toFulfillmentSecretResponse,
  toNotificationOutcome,
} from './dto/order-response.dto';
import { FulfillmentNotificationDto } from './dto/order.dto';
import { SIGNATURE_HEADER } from './fulfillment-signature';
import { FulfillmentNotificationsService } from './fulfillment-notifications.service';

@ApiController('api/v2/sites/:siteName/orders', { tag: 'Orders', permissions: 'orders' })
export class FulfillmentNotificationsController {
  constructor(private readonly notifications: FulfillmentNotificationsService) {}

  @Post('fulfillment-notifications')
  @Route({
    auth: 'public',
    exampleAnswers: {
      status: 401,
      because: 'the signature is made with the site’s fulfillment secret when the notification is sent',
    },
    summary: 'Receive a fulfillment notification',
    description:
      'From the site’s fulfillment provider, signed instead of keyed: `x-sitebase-signature: t=<unix seconds>,' +
      'v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the site’s fulfillment secret>` (docs/orders.md). A missing, ' +
      'forged or stale (over 5 minutes) signature is a 401. The change is the one `PATCH …/orders/{id}/fulfillment` ' +
      'makes, for `orderId`; the notification’s `id` is unique per site: a replay answers the same outcome with ' +
      '`Idempotent-Replayed: true` and changes nothing.',
    body: { raw: true },
    headers: [
      {
        name: SIGNATURE_HEADER,
        required: true,
        description: '`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`',
        schema: {
          type: 'string',
          example: 't=1795567200,v1=bf885cd65895fe7e65933ef7ca400afd9c2a6ce16bb40d73a104844149caa654',
        },
      },
    ],
    ok: {
      type: NotificationOutcomeDto,
      headers: {
        'Idempotent-Replayed': { description: '`true` when the id was applied before', schema: { type: 'string' } },
      },
    },
    problems: [401],
  })
  async receiveFulfillmentNotification(
    @CurrentSite() site: SiteContext,
    @Body() dto: FulfillmentNotificationDto,
    @RawBody() raw: Buffer,
    @Headers(SIGNATURE_HEADER) signature: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<NotificationOutcomeDto> {
    const { outcome, replayed } = await this.notifications.receive(site, raw, signature, dto);
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    return toNotificationOutcome(outcome);
  }

  @Post('fulfillment-secret')
  @Route({
    auth: 'key',
    summary: 'Rotate the fulfillment secret of a site (admin)',
    description:
      'Makes the site’s secret for signed fulfillment notifications (the first one, or a new one) and answers it, ' +
      'once. The previous one keeps verifying until `previousSecretExpiresAt` (FULFILLMENT_SECRET_GRACE_SECONDS).',
    ok: FulfillmentSecretResponseDto,
    admin: true,
  })
  async rotateFulfillmentSecret(@CurrentSite() site: SiteContext): Promise<FulfillmentSecretResponseDto> {
    return toFulfillmentSecretResponse(await this.notifications.rotateSecret(site));
  }
}
