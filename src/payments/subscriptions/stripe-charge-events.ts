import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type Stripe from 'stripe';
import type { EntityManager } from 'typeorm';
import { ProcessorCharge, SubscriptionChargesService } from '../../users/subscriptions/subscription-charges.service';
import { StripeEventContext, StripeEventHandlers } from '../stripe/stripe-event-handlers';
import { STRIPE_METADATA } from '../stripe/stripe-metadata';

const idOf = (value: string | undefined): number | null =>
  value !== undefined && /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : null;

/**
 * Stripe's events about subscription charges (docs/payments.md, "Subscriptions"): a PaymentIntent
 * the charge job made names its line in its metadata. `payment_intent.succeeded` pays the line if
 * it is still pending (the job may have paid it already: the second report changes nothing);
 * `payment_intent.payment_failed` records that attempt's failure if the job has not. An intent
 * without `sitebase_entry_id` (an order's), of another site, mode or subscription, or whose
 * amount or currency is not the line's, is `ignored`.
 */
@Injectable()
export class StripeChargeEvents implements OnModuleInit {
  private readonly logger = new Logger('StripeCharges');

  constructor(
    private readonly handlers: StripeEventHandlers,
    private readonly charges: SubscriptionChargesService,
  ) {}

  onModuleInit(): void {
    this.handlers.on('payment_intent.succeeded', (em, ctx) => this.succeeded(em, ctx));
    this.handlers.on('payment_intent.payment_failed', (em, ctx) => this.failed(em, ctx));
  }

  private async succeeded(em: EntityManager, ctx: StripeEventContext): Promise<'applied' | 'ignored'> {
    const found = await this.lineOf(em, ctx);
    if (!found) return 'ignored';
    const { intent, charge } = found;
    const paid = await this.charges.settleProcessorCharge(
      charge.siteId,
      charge.subscriptionId,
      charge.entryId,
      { processor: 'stripe', chargeId: intent.id },
      em,
    );
    return paid ? 'applied' : 'ignored';
  }

  private async failed(em: EntityManager, ctx: StripeEventContext): Promise<'applied' | 'ignored'> {
    const found = await this.lineOf(em, ctx);
    const attempt = idOf(found?.intent.metadata?.[STRIPE_METADATA.attempt]);
    if (!found || attempt === null) return 'ignored';
    const { intent, charge } = found;
    const recorded = await this.charges.failProcessorCharge(
      charge.siteId,
      charge.subscriptionId,
      charge.entryId,
      {
        processor: 'stripe',
        attempt,
        code: intent.last_payment_error?.code ?? 'payment_failed',
        message: intent.last_payment_error?.message ?? 'The payment failed',
      },
      em,
    );
    return recorded ? 'applied' : 'ignored';
  }

  /** The ledger line the intent names, when it is this site's, in this mode, for exactly the line's amount. */
  private async lineOf(
    em: EntityManager,
    { site, mode, event }: StripeEventContext,
  ): Promise<{ intent: Stripe.PaymentIntent; charge: ProcessorCharge } | null> {
    const intent = event.data.object as Stripe.PaymentIntent;
    const metadata = intent.metadata ?? {};
    const entryId = idOf(metadata[STRIPE_METADATA.entry]);
    const subscriptionId = idOf(metadata[STRIPE_METADATA.subscription]);
    if (entryId === null || subscriptionId === null) return null;
    // A tenant's event never moves another site's rows, whatever its metadata says.
    if (metadata[STRIPE_METADATA.site] !== String(site.id)) return null;
    const charge = await this.charges.processorCharge(site.id, subscriptionId, entryId, em);
    if (!charge || charge.processor !== 'stripe' || charge.processorMode !== mode) return null;
    if (intent.amount !== charge.amountDue || intent.currency !== charge.currency.toLowerCase()) {
      this.logger.warn(
        { siteId: site.id, entryId, eventId: event.id },
        'A Stripe event names a subscription charge with another amount; ignored',
      );
      return null;
    }
    return { intent, charge };
  }
}
