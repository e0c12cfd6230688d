import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type Stripe from 'stripe';
import { DataSource } from 'typeorm';
import { QueueService } from '../../common/queue/queue.service';
import { ProcessorCharge, SubscriptionChargesService } from '../../users/subscriptions/subscription-charges.service';
import { PaymentAccountsService } from '../payment-accounts.service';
import { PaymentCustomersRepository } from '../payment-customers.repository';
import { describeStripeFailure } from '../stripe/stripe-clients';
import { STRIPE_METADATA } from '../stripe/stripe-metadata';

export const STRIPE_CHARGE_JOB = 'payments.stripe-charge';

/** One attempt at one ledger line: ids only (the line is read when the job runs). */
export interface StripeChargePayload {
  siteId: number;
  subscriptionId: number;
  entryId: number;
  attempt: number;
}

/** pg-boss's retries of one attempt (Stripe 5xx, 429, timeouts), all with the attempt's idempotency key. */
const RETRY_LIMIT = 8;
const CHARGEABLE = ['trialing', 'active', 'past_due'];

/** What one attempt asks Stripe for: the line's amount due, on the saved payment method, off-session. */
export function chargeParams(
  charge: ProcessorCharge,
  attempt: number,
  customer: { customerId: string; paymentMethodId: string },
): Stripe.PaymentIntentCreateParams {
  return {
    amount: charge.amountDue,
    currency: charge.currency.toLowerCase(),
    customer: customer.customerId,
    payment_method: customer.paymentMethodId,
    off_session: true,
    confirm: true,
    // Off-session nobody can follow a redirect: a method that needs one fails now, and is retried by our schedule.
    automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
    description: charge.description.slice(0, 1000) || `Subscription ${charge.subscriptionId}`,
    metadata: {
      [STRIPE_METADATA.site]: String(charge.siteId),
      [STRIPE_METADATA.subscription]: String(charge.subscriptionId),
      [STRIPE_METADATA.entry]: String(charge.entryId),
      [STRIPE_METADATA.user]: String(charge.userId),
      [STRIPE_METADATA.attempt]: String(attempt),
    },
  };
}

/**
 * The charge job (docs/payments.md, "Subscriptions"): one attempt at one ledger line of a Stripe
 * subscription, an off-session PaymentIntent with the idempotency key
 * `sitebase-charge-<site>-<entry>-<attempt>`, so a job run twice (a retry after a timeout, a
 * crash after Stripe answered) charges once. Succeeded: the line is paid through the users
 * module's service, as a pay route would. A card error, authentication required or no saved
 * payment method: a failed attempt (the subscription `past_due`, our next attempt planned). Stripe
 * unreachable, 5xx or 429: thrown, so pg-boss tries the same attempt again; after its last try the
 * attempt counts as failed and our schedule takes over.
 */
@Injectable()
export class StripeChargeJob implements OnModuleInit {
  private readonly logger = new Logger('StripeCharges');

  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: QueueService,
    private readonly accounts: PaymentAccountsService,
    private readonly customers: PaymentCustomersRepository,
    private readonly charges: SubscriptionChargesService,
  ) {}

  onModuleInit(): void {
    this.queue.register<StripeChargePayload>(STRIPE_CHARGE_JOB, (data, job) => this.run(data, job.retryCount), {
      retryLimit: RETRY_LIMIT,
      retryDelaySeconds: 5,
      retryBackoff: true,
      expireInSeconds: 5 * 60,
    });
  }

  async run(p: StripeChargePayload, retryCount = 0): Promise<void> {
    const charge = await this.charges.processorCharge(p.siteId, p.subscriptionId, p.entryId);
    // Paid already (the webhook came first), this attempt concluded, or nothing more is collected.
    if (!charge || charge.processor !== 'stripe' || charge.status !== 'pending' || charge.attempts >= p.attempt) return;
    if (!CHARGEABLE.includes(charge.subscriptionStatus)) return;
    const fail = (code: string, message: string) =>
      this.charges.failProcessorCharge(p.siteId, p.subscriptionId, p.entryId, {
        processor: 'stripe',
        attempt: p.attempt,
        code,
        message,
      });
    const mode = charge.processorMode;
    const site = mode ? await this.accounts.stripeOf(p.siteId, mode) : null;
    if (!site || !mode)
      return void (await fail('processor_not_connected', `The site has no Stripe keys for ${mode ?? 'its'} mode`));
    const customer = await this.customers.find(this.dataSource.manager, p.siteId, charge.userId, mode);
    if (!customer?.paymentMethodId)
      return void (await fail(
        'no_payment_method',
        'The customer has no saved payment method: they must pay once on-session',
      ));
    let intent: Stripe.PaymentIntent;
    try {
      intent = await site.stripe.paymentIntents.create(
        chargeParams(charge, p.attempt, { customerId: customer.customerId, paymentMethodId: customer.paymentMethodId }),
        { idempotencyKey: `sitebase-charge-${p.siteId}-${p.entryId}-${p.attempt}` },
      );
    } catch (err) {
      const failure = describeStripeFailure(err);
      if (failure.transient && retryCount < RETRY_LIMIT)
        throw new Error(`Stripe did not answer the charge (${failure.code ?? failure.type}); retried`, {
          cause: err,
        });
      this.logger.warn(
        { siteId: p.siteId, entryId: p.entryId, attempt: p.attempt, code: failure.code },
        'Charge failed',
      );
      // The client prefixes Stripe's message with its request id; the line shows Stripe's words.
      const message = failure.message.replace(/^\[req_\w+\] /, '');
      return void (await fail(failure.code ?? (failure.transient ? 'processor_unavailable' : failure.type), message));
    }
    if (intent.status === 'succeeded')
      await this.charges.settleProcessorCharge(p.siteId, p.subscriptionId, p.entryId, {
        processor: 'stripe',
        chargeId: intent.id,
      });
    // `processing` (a debit that settles in days): its payment_intent.succeeded or payment_failed event concludes it.
    else if (intent.status !== 'processing')
      await fail(
        intent.last_payment_error?.code ??
          (intent.status === 'requires_action' ? 'authentication_required' : intent.status),
        intent.last_payment_error?.message ?? `The payment is ${intent.status}`,
      );
  }
}
