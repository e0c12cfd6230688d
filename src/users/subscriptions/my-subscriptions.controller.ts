import { Body, Get, Param, Post, Query } from '@nestjs/common';
import { CurrentSite, CurrentUser } from '../../common/auth/decorators';
import { UserPrincipal } from '../../common/auth/principal';
import { SiteIdParamDto } from '../../common/http/params';
import { ApiController, Route } from '../../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../../common/pagination/page';
import { SiteContext } from '../../common/tenancy/site-context';
import {
  CancelSubscriptionDto,
  ChangeMyPlanDto,
  PauseSubscriptionDto,
  PlanChangeDto,
  UserSubscriptionQueryDto,
  UserSubscriptionResponseDto,
  toPlanChange,
  toSubscriptionResponse,
  FORBIDDEN_MOVES,
} from '../dto/subscription.dto';
import { UserSubscriptionsService } from './user-subscriptions.service';

/** The signed-in user's own subscriptions (a session of this site; a key is a 403). */
@ApiController('api/v2/sites/:siteName/users/me/subscriptions', { tag: 'Site users', permissions: 'none' })
export class MySubscriptionsController {
  constructor(private readonly subscriptions: UserSubscriptionsService) {}

  @Get()
  @Route({
    auth: 'user',
    summary: 'List the current user’s subscriptions',
    description: 'Newest first, keyset-paginated; filter by status.',
    ok: PageDto(UserSubscriptionResponseDto),
  })
  async listMySubscriptions(
    @CurrentUser() user: UserPrincipal,
    @Query() query: UserSubscriptionQueryDto,
  ): Promise<Page<UserSubscriptionResponseDto>> {
    return mapPage(await this.subscriptions.listOf(user.userId, query), toSubscriptionResponse);
  }

  @Post(':id/pause')
  @Route({
    auth: 'user',
    summary: 'Pause one of the current user’s subscriptions',
    description: `\`trialing | active → paused\`, until \`resumesAt\` or a resume. ${FORBIDDEN_MOVES}`,
    ok: UserSubscriptionResponseDto,
    body: { optional: PauseSubscriptionDto },
    idempotent: true,
  })
  async pauseMySubscription(
    @CurrentSite() site: SiteContext,
    @CurrentUser() user: UserPrincipal,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: PauseSubscriptionDto,
  ): Promise<UserSubscriptionResponseDto> {
    return toSubscriptionResponse(await this.subscriptions.pause(site, user.userId, id, dto ?? {}));
  }

  @Post(':id/resume')
  @Route({
    auth: 'user',
    summary: 'Resume one of the current user’s subscriptions',
    description: `\`paused → active\`; after the period lapsed, a new period from now, charged. ${FORBIDDEN_MOVES}`,
    ok: UserSubscriptionResponseDto,
    idempotent: true,
  })
  async resumeMySubscription(
    @CurrentSite() site: SiteContext,
    @CurrentUser() user: UserPrincipal,
    @Param() { id }: SiteIdParamDto,
  ): Promise<UserSubscriptionResponseDto> {
    return toSubscriptionResponse(await this.subscriptions.resume(site, user.userId, id));
  }

  @Post(':id/cancel')
  @Route({
    auth: 'user',
    summary: 'Cancel one of the current user’s subscriptions',
    description: `Now, or with \`atPeriodEnd\` when the current period ends. ${FORBIDDEN_MOVES}`,
    ok: UserSubscriptionResponseDto,
    body: { optional: CancelSubscriptionDto },
    idempotent: true,
  })
  async cancelMySubscription(
    @CurrentSite() site: SiteContext,
    @CurrentUser() user: UserPrincipal,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: CancelSubscriptionDto,
  ): Promise<UserSubscriptionResponseDto> {
    return toSubscriptionResponse(await this.subscriptions.cancel(site, user.userId, id, dto ?? {}));
  }

  @Post(':id/change-plan')
  @Route({
    auth: 'user',
    summary: 'Change the plan of one of the current user’s subscriptions',
    description:
      'Another recurring product, variant or quantity in the same currency, always prorated: the unused part of ' +
      'the old plan is credited and the new plan charged at once for the rest of the period (a new billing ' +
      'interval: a new period from now, charged in full). Unpaid, the subscription is `past_due` until ' +
      `\`unpaidCancelAt\` (the site’s dunning window), then canceled. ${FORBIDDEN_MOVES}`,
    ok: PlanChangeDto,
    idempotent: true,
  })
  async changeMySubscriptionPlan(
    @CurrentSite() site: SiteContext,
    @CurrentUser() user: UserPrincipal,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: ChangeMyPlanDto,
  ): Promise<PlanChangeDto> {
    return toPlanChange(await this.subscriptions.changePlan(site, user.userId, id, dto));
  }
}
