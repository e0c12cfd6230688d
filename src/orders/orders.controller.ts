import { Body, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentPrincipal, CurrentSite } from '../common/auth/decorators';
import type { Principal } from '../common/auth/principal';
import { SiteIdParamDto } from '../common/http/params';
import { created } from '../common/http/public-urls';
import { ApiController, Route } from '../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { OrderResponseDto, OrderSummaryDto, toOrderResponse, toOrderSummary } from './dto/order-response.dto';
import { CreateOrderDto, OrderQueryDto, UpdateFulfillmentDto, UpdatePaymentDto } from './dto/order.dto';
import { OrderFulfillmentService } from './order-fulfillment.service';
import { OrdersService } from './orders.service';

@ApiController('api/v2/sites/:siteName/orders', { tag: 'Orders', permissions: 'orders' })
export class OrdersController {
  constructor(
    private readonly orders: OrdersService,
    private readonly fulfillment: OrderFulfillmentService,
  ) {}

  @Get()
  @Route({
    auth: 'session',
    summary: 'List orders',
    description:
      'A site user’s session lists only their own orders. ' +
      'Newest first; keyset-paginated. Filters: payment and fulfillment status, the customer’s email (exact, ' +
      'case-insensitive), created from/to (RFC 3339). Without lines and shipments: get one for those.',
    ok: PageDto(OrderSummaryDto),
  })
  async listOrders(
    @CurrentSite() site: SiteContext,
    @Query() query: OrderQueryDto,
    @CurrentPrincipal() caller: Principal,
  ): Promise<Page<OrderSummaryDto>> {
    return mapPage(await this.orders.list(site, query, caller), toOrderSummary);
  }

  @Post()
  @Route({
    auth: 'session',
    summary: 'Create an order',
    description:
      'With a key, for any customer; with a site user’s session, the user’s own order (payment `pending`). ' +
      'Prices, currency and tax come from the catalog and the site’s tax rates (a client’s prices are refused); ' +
      'one currency per order. Stock is taken in the same transaction: 409 `out_of_stock` names the item. ' +
      'Unpaid, the order holds its stock until `expiresAt` (the site’s `sessionHoldMinutes` or `keyHoldMinutes`), ' +
      'then is canceled. A site user with `maxPendingPerUser` unpaid orders gets a 409 `too_many_pending_orders`; ' +
      'one who would hold more than `maxHeldPerProduct` units of an item or `maxHeldPerUser` in all (of counted ' +
      'stock) a 409 `hold_limit_exceeded`; one whose hold of an item expired less than `holdCooldownMinutes` ago ' +
      'a 409 `hold_cooldown` with Retry-After. ' +
      'The customer gets the `orders.confirmation` mail. `Idempotency-Key` replays the first answer.',
    created: OrderResponseDto,
    idempotent: true,
  })
  async createOrder(
    @CurrentSite() site: SiteContext,
    @Body() dto: CreateOrderDto,
    @CurrentPrincipal() caller: Principal,
    @Res({ passthrough: true }) res: Response,
  ): Promise<OrderResponseDto> {
    const view = await this.orders.create(site, dto, caller);
    created(res, `/api/v2/sites/${site.name}/orders/${view.order.id}`);
    return toOrderResponse(view);
  }

  @Get(':id')
  @Route({
    auth: 'session',
    summary: 'Get an order',
    description: 'With its lines and shipments. A site user’s session reads only their own orders.',
    ok: OrderResponseDto,
  })
  async getOrder(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @CurrentPrincipal() caller: Principal,
  ): Promise<OrderResponseDto> {
    return toOrderResponse(await this.orders.get(site, id, caller));
  }

  @Patch(':id/fulfillment')
  @Route({
    auth: 'key',
    summary: 'Update the fulfillment of an order',
    description:
      'Either a `shipment` (carrier, tracking, and the units of each line; absent lines: all that is left), which ' +
      'moves the order to `partially_fulfilled` or `fulfilled` and mails the customer, or a `status`: `canceled` ' +
      '(gives back the stock of what was not shipped) or `fulfilled` (the rest, without a shipment). Shipping ' +
      'more than ordered, shipping a canceled order or canceling a fulfilled one is a 409.',
    ok: OrderResponseDto,
    problems: [409],
    bodyExample: {
      shipment: {
        carrier: 'DHL',
        trackingNumber: 'JD014600003828',
        trackingUrl: 'https://tracking.example/JD014600003828',
      },
    },
  })
  async updateOrderFulfillment(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateFulfillmentDto,
  ): Promise<OrderResponseDto> {
    return toOrderResponse(await this.fulfillment.updateFulfillment(site, id, dto));
  }

  @Patch(':id/payment')
  @Route({
    auth: 'key',
    summary: 'Record the payment of an order (admin)',
    description:
      'For the site’s backend, when its payment processor confirms: `pending → paid → refunded`; any other move ' +
      'is a 409 `transition_forbidden`; paying an order past its `expiresAt` is a 409 `order_expired`. Paid ' +
      'records `order.paid` (and `order.subscription_requested` per recurring line).',
    ok: OrderResponseDto,
    problems: [409],
    admin: true,
  })
  async updateOrderPayment(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdatePaymentDto,
  ): Promise<OrderResponseDto> {
    return toOrderResponse(await this.orders.updatePayment(site, id, dto));
  }
}
