import { Injectable, OnModuleInit } from '@nestjs/common';
import { QueueService } from '../../common/queue/queue.service';
import {
  ChargeOutcome,
  ChargeRequest,
  PaymentProcessor,
  PaymentProcessors,
} from '../../users/subscriptions/payment-processors.service';
import { STRIPE_CHARGE_JOB, StripeChargePayload } from './stripe-charge.job';

/**
 * The `stripe` processor of user subscriptions (docs/payments.md, "Subscriptions"): Sitebase's
 * ledger lines are charged one by one with off-session PaymentIntents on the customer's saved
 * payment method; no Stripe Billing (one ledger, ours). `charge` runs inside the ledger's
 * transaction, so it only queues the charge job there (the job exists if and only if the line
 * does) and answers `processing`: the line stays `pending`, the subscription does not fall due
 * unless the attempt fails.
 */
@Injectable()
export class StripeSubscriptionProcessor implements PaymentProcessor, OnModuleInit {
  readonly name = 'stripe';

  constructor(
    private readonly processors: PaymentProcessors,
    private readonly queue: QueueService,
  ) {}

  onModuleInit(): void {
    this.processors.register(this);
  }

  async charge(request: ChargeRequest): Promise<ChargeOutcome> {
    const { siteId, subscriptionId, entryId, attempt } = request;
    const payload: StripeChargePayload = { siteId, subscriptionId, entryId, attempt };
    await this.queue.send(STRIPE_CHARGE_JOB, payload, { em: request.em });
    return { status: 'processing', processorChargeId: null };
  }
}
