import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** What Sitebase asks of a processor for one charge of a subscription. */
export interface ChargeRequest {
  /** The ledger's transaction (the subscription's row is locked): a job queued with it exists only if the line does. */
  em: EntityManager;
  siteId: number;
  subscriptionId: number;
  processorSubscriptionId: string | null;
  /** Minor units of `currency`. */
  amount: number;
  currency: string;
  description: string;
  /** The ledger line's id: with `attempt`, the processor's idempotency key for this charge. */
  entryId: number;
  /** 1 for the first try of the line, one more for each failed attempt recorded before (`chargeAttempts + 1`). */
  attempt: number;
}

export interface ChargeOutcome {
  /**
   * `paid`: collected now; `pending`: the processor (or the site) settles it later, and the
   * subscription falls due (`past_due`) meanwhile; `processing`: an attempt is under way (a job of
   * the adapter's), the line stays `pending` but the subscription does not fall due until the
   * attempt fails (`SubscriptionChargesService.failProcessorCharge`).
   */
  status: 'pending' | 'paid' | 'processing';
  processorChargeId: string | null;
}

/**
 * A payment processor behind user subscriptions (docs/users.md). Sitebase keeps the ledger and
 * asks the processor for what a line still owes; collecting money is the processor's. A charge
 * it answers `pending` or `processing` and settles later is reported back through
 * `SubscriptionChargesService.settleProcessorCharge` / `failProcessorCharge` (its job's or
 * webhook's handler). An adapter is added only with the processor's official SDK and is active
 * only when configured (Stripe: src/payments/subscriptions/); the built-in `manual` processor
 * collects nothing and leaves every charge `pending` for the site to settle its own way.
 */
export interface PaymentProcessor {
  readonly name: string;
  /** Runs inside the charge's transaction: never call out from here; queue a job with `request.em`. */
  charge(request: ChargeRequest): Promise<ChargeOutcome>;
}

/** The built-in processor: records, never collects. */
export class ManualPaymentProcessor implements PaymentProcessor {
  readonly name = 'manual';

  charge(): Promise<ChargeOutcome> {
    return Promise.resolve({ status: 'pending', processorChargeId: null });
  }
}

/** The processors this installation knows, by name; `manual` always. Adapters register in onModuleInit. */
@Injectable()
export class PaymentProcessors {
  private readonly processors = new Map<string, PaymentProcessor>([['manual', new ManualPaymentProcessor()]]);

  register(processor: PaymentProcessor): void {
    this.processors.set(processor.name, processor);
  }

  /** A subscription's processor; one no longer configured falls back to `manual` (nothing is collected). */
  get(name: string): PaymentProcessor {
    return this.processors.get(name) ?? this.processors.get('manual')!;
  }
}
