import { Param, Post } from '@nestjs/common';
import { CurrentPrincipal, CurrentSite } from '../../common/auth/decorators';
import type { Principal } from '../../common/auth/principal';
import { SiteIdParamDto } from '../../common/http/params';
import { ApiController, Route } from '../../common/http/route.decorator';
import { SiteContext } from '../../common/tenancy/site-context';
import { OrderResponseDto, toOrderResponse } from '../../orders/dto/order-response.dto';
import { OrderPaymentIntentDto } from '../dto/order-payment.dto';
import { OrderPaymentsService } from './order-payments.service';

@ApiController('api/v2/sites/:siteName/orders', { tag: 'Orders', permissions: 'orders' })
export class OrderPaymentsController {
  constructor(private readonly payments: OrderPaymentsService) {}

  @Post(':id/payment-intent')
  @Route({
    auth: 'session',
    summary: 'Get the Stripe PaymentIntent of an order',
    description:
      'For a checkout with Stripe’s Payment Element (docs/payments.md, "Orders"): the order’s PaymentIntent in ' +
      'the site’s charging mode, for the order’s total and currency (never the client’s), made on the first call ' +
      'and answered again on the next ones (a canceled one is replaced). Confirm it in the browser with ' +
      '`clientSecret`; Stripe’s signed `payment_intent.succeeded` then marks the order paid. A site user’s session ' +
      'for their own order, or a key. 409 `processor_not_connected` for a site without Stripe, `order_expired` ' +
      'past the order’s hold, `transition_forbidden` for an order paid, refunded or canceled; 503 ' +
      '`processor_unavailable` when Stripe cannot be reached (nothing changed).',
    ok: OrderPaymentIntentDto,
    problems: [503],
    exampleAnswers: {
      status: 409,
      because:
        'the example order is paid and refunded by then (PATCH …/payment); a pending order of a connected site answers 200',
    },
  })
  async createOrderPaymentIntent(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @CurrentPrincipal() caller: Principal,
  ): Promise<OrderPaymentIntentDto> {
    return this.payments.paymentIntent(site, id, caller);
  }

  @Post(':id/refund')
  @Route({
    auth: 'key',
    summary: 'Refund an order (admin)',
    description:
      'A paid order paid through Stripe is refunded in full through Stripe, then `refunded` (`order.refunded`); ' +
      '503 `processor_unavailable` when Stripe cannot be reached (nothing changed; try again). An order the ' +
      'site’s backend records (`manual`) is recorded refunded, as PATCH …/payment does: nothing is collected ' +
      'back. An order that is not paid is a 409 `transition_forbidden`.',
    ok: OrderResponseDto,
    problems: [503],
    exampleAnswers: {
      status: 409,
      because: 'the example order is refunded by then (PATCH …/payment); a paid order answers 200',
    },
    admin: true,
  })
  async refundOrder(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @CurrentPrincipal() caller: Principal,
  ): Promise<OrderResponseDto> {
    return toOrderResponse(await this.payments.refund(site, id, caller));
  }
}
