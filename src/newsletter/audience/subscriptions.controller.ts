import { Body, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { CurrentSite } from '../../common/auth/decorators';
import { SiteIdParamDto } from '../../common/http/params';
import { ApiController, Route } from '../../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../../common/pagination/page';
import { SiteContext } from '../../common/tenancy/site-context';
import {
  ByEmailQueryDto,
  ChangeStatusDto,
  ListMembershipDto,
  SubscriptionQueryDto,
  SubscriptionResponseDto,
  toSubscriptionResponse,
} from '../dto/subscription.dto';
import { SubscriptionsService } from './subscriptions.service';

@ApiController('api/v2/sites/:siteName/newsletter/subscriptions', { tag: 'Newsletter', permissions: 'newsletter' })
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'List subscriptions',
    description: 'Newest first, keyset-paginated; filters combine. Each subscription shows its lists.',
    ok: PageDto(SubscriptionResponseDto),
  })
  async listSubscriptions(
    @CurrentSite() site: SiteContext,
    @Query() query: SubscriptionQueryDto,
  ): Promise<Page<SubscriptionResponseDto>> {
    return mapPage(await this.subscriptions.list(site, query), toSubscriptionResponse);
  }

  // Before `:id`, which would read `by-email` as a (bad) id.
  @Get('by-email')
  @Route({
    auth: 'key',
    summary: 'Get a subscription by email',
    ok: SubscriptionResponseDto,
  })
  async getSubscriptionByEmail(
    @CurrentSite() site: SiteContext,
    @Query() { email }: ByEmailQueryDto,
  ): Promise<SubscriptionResponseDto> {
    return toSubscriptionResponse(await this.subscriptions.byEmail(site, email));
  }

  @Get(':id')
  @Route({ auth: 'key', summary: 'Get a subscription', ok: SubscriptionResponseDto })
  async getSubscription(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
  ): Promise<SubscriptionResponseDto> {
    return toSubscriptionResponse(await this.subscriptions.get(site, id));
  }

  @Delete(':id')
  @Route({
    auth: 'key',
    summary: 'Delete a subscription',
    description:
      'Erases the subscriber: the row, its memberships and consent evidence. With the site setting ' +
      '`newsletter.suppressOnDelete`, a hash of the address is kept so import, sync and bulk never add it again.',
    noContent: true,
  })
  async deleteSubscription(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<void> {
    await this.subscriptions.remove(site, id);
  }

  @Post(':id/list-membership')
  @Route({
    auth: 'key',
    summary: 'Change list membership',
    description:
      'Joins (`add`) and leaves (`remove`) lists. With `consent` the joins are `active`; without, `pending` and a ' +
      'confirmation is mailed. Joining a list the subscriber left, or any list for an address that complained ' +
      'or is suppressed, is a 409: only the person subscribes again.',
    ok: SubscriptionResponseDto,
  })
  async changeSubscriptionListMembership(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: ListMembershipDto,
  ): Promise<SubscriptionResponseDto> {
    return toSubscriptionResponse(await this.subscriptions.listMembership(site, id, dto));
  }

  @Post(':id/status')
  @Route({
    auth: 'key',
    summary: 'Change a subscription status',
    description:
      'Moves memberships to `unsubscribed` (some lists or all) and/or sets the deliverability, with a reason. ' +
      'Other moves are a 409 with nothing changed: an operator never subscribes anyone back, and a complaint ' +
      'only moves to `suppressed`.',
    ok: SubscriptionResponseDto,
  })
  async changeSubscriptionStatus(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: ChangeStatusDto,
  ): Promise<SubscriptionResponseDto> {
    return toSubscriptionResponse(await this.subscriptions.changeStatus(site, id, dto));
  }
}
