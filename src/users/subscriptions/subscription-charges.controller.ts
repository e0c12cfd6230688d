import { Body, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentSite } from '../../common/auth/decorators';
import { created } from '../../common/http/public-urls';
import { ApiController, Route } from '../../common/http/route.decorator';
import { SiteContext } from '../../common/tenancy/site-context';
import { ChargeResponseDto, CreateChargeDto, PayChargeDto, toSubscriptionEntry } from '../dto/subscription-charge.dto';
import {
  PaidChargeDto,
  SubscriptionChargeParamDto,
  toSubscriptionResponse,
  UserSubscriptionParamDto,
  FORBIDDEN_MOVES,
} from '../dto/subscription.dto';
import { SubscriptionChargesService } from './subscription-charges.service';

/** Operators' routes over the charges of a user's subscription (a secret key; a session is a 403). */
@ApiController('api/v2/sites/:siteName/users', { tag: 'Site users', permissions: 'users' })
export class SubscriptionChargesController {
  constructor(private readonly charges: SubscriptionChargesService) {}

  @Post(':id/subscriptions/:subId/charges')
  @Route({
    auth: 'key',
    summary: 'Charge a site user’s subscription',
    description:
      'Records a charge: paid from credits with `payWithCredits` when the balance allows, otherwise `pending` for ' +
      `the payment processor. \`Idempotency-Key\` replays. ${FORBIDDEN_MOVES}`,
    created: ChargeResponseDto,
    idempotent: true,
  })
  async createUserSubscriptionCharge(
    @CurrentSite() site: SiteContext,
    @Param() { id, subId }: UserSubscriptionParamDto,
    @Body() dto: CreateChargeDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ChargeResponseDto> {
    const { charge, creditBalance } = await this.charges.charge(site, id, subId, dto);
    created(res, `/api/v2/sites/${site.name}/users/${id}/subscriptions/${subId}`);
    return { charge: toSubscriptionEntry(charge), creditBalance };
  }

  @Post(':id/subscriptions/:subId/charges/:chargeId/pay')
  @Route({
    auth: 'key',
    summary: 'Pay a pending charge of a site user’s subscription (admin)',
    description:
      'Settles a `pending` ledger line: `paidOutOfBand` (paid outside Sitebase), `payWithCredits` (409 ' +
      '`insufficient_credits` when short, nothing taken), or neither: the processor is asked again (the manual one ' +
      'leaves it pending). A paid line or a credit is a 409 `transition_forbidden`. The last unpaid period charge ' +
      'of a `past_due` subscription makes it `active`. `Idempotency-Key` replays.',
    ok: PaidChargeDto,
    bodyExample: { paidOutOfBand: true, reference: 'Transfer 2026-11-30 #4411' },
    body: { optional: PayChargeDto },
    idempotent: true,
    admin: true,
  })
  async payUserSubscriptionCharge(
    @CurrentSite() site: SiteContext,
    @Param() { id, subId, chargeId }: SubscriptionChargeParamDto,
    @Body() dto: PayChargeDto,
  ): Promise<PaidChargeDto> {
    const paid = await this.charges.pay(site, id, subId, chargeId, dto ?? {});
    return {
      charge: toSubscriptionEntry(paid.charge),
      subscription: toSubscriptionResponse(paid.subscription),
      creditBalance: paid.creditBalance,
    };
  }
}
