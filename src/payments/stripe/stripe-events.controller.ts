import { Headers, Post } from '@nestjs/common';
import { CurrentSite } from '../../common/auth/decorators';
import { ApiController, Route } from '../../common/http/route.decorator';
import { RawBody } from '../../common/input/request-body';
import { SiteContext } from '../../common/tenancy/site-context';
import { StripeEventOutcomeDto, StripeEventPayloadDto } from '../dto/payment-account.dto';
import { StripeEventsService } from './stripe-events.service';

@ApiController('api/v2/sites/:siteName/payments/stripe', { tag: 'Admin: payments', permissions: 'none' })
export class StripeEventsController {
  constructor(private readonly events: StripeEventsService) {}

  @Post('events')
  @Route({
    auth: 'public',
    exampleAnswers: { status: 401, because: 'Stripe signs each event with the site’s webhook secret when it sends it' },
    summary: 'Receive a Stripe event',
    description:
      'The site’s Stripe webhook endpoint (docs/payments.md): signed instead of keyed (`Stripe-Signature`, ' +
      'checked with the webhook secret of the event’s mode; a missing, forged or stale signature is a 401 and ' +
      'changes nothing). Each event id is applied once (a redelivery answers `replayed: true`), in any order; ' +
      'types Sitebase does not act on are acknowledged as `ignored`.',
    body: { raw: true, optional: StripeEventPayloadDto },
    headers: [
      {
        name: 'stripe-signature',
        required: true,
        description: '`t=<unix seconds>,v1=<hex HMAC-SHA256(webhook secret, "<t>.<raw body>")>`',
        schema: {
          type: 'string',
          example: 't=1795567200,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
        },
      },
    ],
    ok: StripeEventOutcomeDto,
    problems: [401],
  })
  async receiveStripeEvent(
    @CurrentSite() site: SiteContext,
    @RawBody() raw: Buffer,
    @Headers('stripe-signature') signature: string | undefined,
  ): Promise<StripeEventOutcomeDto> {
    return this.events.receive(site, raw, signature);
  }
}
