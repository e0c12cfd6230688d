import { Body, Get, Param, Post, Query } from '@nestjs/common';
import { CurrentSite } from '../../common/auth/decorators';
import { SiteIdParamDto } from '../../common/http/params';
import { ApiController, Route } from '../../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../../common/pagination/page';
import { SiteContext } from '../../common/tenancy/site-context';
import {
  CancelSubscriptionDto,
  ChangePlanDto,
  PauseSubscriptionDto,
  PlanChangeDto,
  UserSubscriptionQueryDto,
  UserSubscriptionResponseDto,
  toPlanChange,
  toSubscriptionResponse,
  UserSubscriptionParamDto,
  FORBIDDEN_MOVES,
} from '../dto/subscription.dto';
import { UserSubscriptionsService } from './user-subscriptions.service';

/** Operators' routes over a user's subscriptions (a secret key; a session is a 403). */
@ApiController('api/v2/sites/:siteName/users', { tag: 'Site users', permissions: 'users' })
export class UserSubscriptionsController {
  constructor(private readonly subscriptions: UserSubscriptionsService) {}

  @Get(':id/subscriptions')
  @Route({
    auth: 'key',
    summary: 'List a site user’s subscriptions',
    description: 'Newest first, keyset-paginated; filter by status.',
    ok: PageDto(UserSubscriptionResponseDto),
  })
  async listUserSubscriptions(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Query() query: UserSubscriptionQueryDto,
  ): Promise<Page<UserSubscriptionResponseDto>> {
    return mapPage(await this.subscriptions.list(site, id, query), toSubscriptionResponse);
  }

  @Post(':id/subscriptions/:subId/pause')
  @Route({
    auth: 'key',
    summary: 'Pause a site user’s subscription',
    description: `\`trialing | active → paused\`, until \`resumesAt\` (then a job resumes it) or a resume. ${FORBIDDEN_MOVES}`,
    ok: UserSubscriptionResponseDto,
    body: { optional: PauseSubscriptionDto },
    idempotent: true,
  })
  async pauseUserSubscription(
    @CurrentSite() site: SiteContext,
    @Param() { id, subId }: UserSubscriptionParamDto,
    @Body() dto: PauseSubscriptionDto,
  ): Promise<UserSubscriptionResponseDto> {
    return toSubscriptionResponse(await this.subscriptions.pause(site, id, subId, dto ?? {}));
  }

  @Post(':id/subscriptions/:subId/resume')
  @Route({
    auth: 'key',
    summary: 'Resume a site user’s subscription',
    description:
      '`paused → active`; a period that ended while paused starts again now, with its renewal charge (`past_due` ' +
      `while unpaid). ${FORBIDDEN_MOVES}`,
    ok: UserSubscriptionResponseDto,
    idempotent: true,
  })
  async resumeUserSubscription(
    @CurrentSite() site: SiteContext,
    @Param() { id, subId }: UserSubscriptionParamDto,
  ): Promise<UserSubscriptionResponseDto> {
    return toSubscriptionResponse(await this.subscriptions.resume(site, id, subId));
  }

  @Post(':id/subscriptions/:subId/cancel')
  @Route({
    auth: 'key',
    summary: 'Cancel a site user’s subscription',
    description: `Now, or with \`atPeriodEnd\` when the current period ends. ${FORBIDDEN_MOVES}`,
    ok: UserSubscriptionResponseDto,
    // Now: the user's own cancel example (at the period's end) ran before; a second such cancel is a 409.
    bodyExample: { atPeriodEnd: false, reason: 'Too expensive' },
    body: { optional: CancelSubscriptionDto },
    idempotent: true,
  })
  async cancelUserSubscription(
    @CurrentSite() site: SiteContext,
    @Param() { id, subId }: UserSubscriptionParamDto,
    @Body() dto: CancelSubscriptionDto,
  ): Promise<UserSubscriptionResponseDto> {
    return toSubscriptionResponse(await this.subscriptions.cancel(site, id, subId, dto ?? {}));
  }

  @Post(':id/subscriptions/:subId/change-plan')
  @Route({
    auth: 'key',
    summary: 'Change the plan of a site user’s subscription',
    description:
      'Another recurring product, variant or quantity in the same currency. Prorated unless `prorate: false`: the ' +
      'unused old plan is credited to the balance and the new plan charged at once for the rest of the period. A ' +
      'new billing interval starts a new period now, always charged in full. Unpaid, the subscription is ' +
      `\`past_due\` until \`unpaidCancelAt\` (the site’s dunning window), then canceled. ${FORBIDDEN_MOVES}`,
    ok: PlanChangeDto,
    // Back to the product without a variant (the user's own change-plan example moved to variant 1), unprorated.
    bodyExample: { productId: 1, prorate: false },
    idempotent: true,
  })
  async changeUserSubscriptionPlan(
    @CurrentSite() site: SiteContext,
    @Param() { id, subId }: UserSubscriptionParamDto,
    @Body() dto: ChangePlanDto,
  ): Promise<PlanChangeDto> {
    return toPlanChange(await this.subscriptions.changePlan(site, id, subId, dto));
  }
}
