import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundProblem, ValidationProblem } from '../common/errors/problems';
import { SiteContext } from '../common/tenancy/site-context';
import { CreateChargeDto, PayChargeDto } from './dto/subscription-charge.dto';
import { SubscriptionEntryEntity } from './entities/subscription-entry.entity';
import { ChargeResult, PaidCharge, SubscriptionBilling } from './subscription-billing';
import { changeSubscription } from './subscription-lock';
import { assertSubscriptionMove } from './subscription-status';

export type { ChargeResult, PaidCharge } from './subscription-billing';

/**
 * The money of a subscription outside its periods (docs/users.md, "Subscriptions"): an operator's
 * ad-hoc charge, and paying a pending line, by an operator's route or a processor's webhook.
 * The ledger's rules are subscription-billing.ts's; this takes the row lock and checks the request.
 */
@Injectable()
export class SubscriptionChargesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly billing: SubscriptionBilling,
  ) {}

  /** An operator's ad-hoc charge (not part of a period). */
  charge(site: SiteContext, userId: number, id: number, dto: CreateChargeDto): Promise<ChargeResult> {
    return changeSubscription(this.dataSource, site, userId, id, (em, sub) => {
      assertSubscriptionMove(sub.status, 'charge');
      if (dto.currency && dto.currency !== sub.currency)
        throw new ValidationProblem([{ path: 'currency', message: `must be the subscription's, ${sub.currency}` }]);
      return this.billing.charge(em, site, sub, dto);
    });
  }

  /** Pays a pending line of the subscription (subscription-billing.ts); another subscription's is a 404. */
  pay(site: SiteContext, userId: number, id: number, chargeId: number, dto: PayChargeDto): Promise<PaidCharge> {
    return changeSubscription(this.dataSource, site, userId, id, async (em, sub) => {
      const entry = await em.findOne(SubscriptionEntryEntity, {
        where: { id: chargeId, subscriptionId: sub.id, siteId: site.id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!entry) throw new NotFoundProblem('Charge');
      return this.billing.pay(em, site, sub, entry, dto);
    });
  }
}
