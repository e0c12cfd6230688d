import { Injectable } from '@nestjs/common';

/** What Sitebase asks of a processor for one charge of a subscription. */
export interface ChargeRequest {
  siteId: number;
  subscriptionId: number;
  processorSubscriptionId: string | null;
  /** Minor units of `currency`. */
  amount: number;
  currency: string;
  description: string;
  /** The ledger line's id: the processor's idempotency key for this charge. */
  entryId: number;
}

export interface ChargeOutcome {
  /** `paid`: collected now; `pending`: the processor (or the site) settles it later. */
  status: 'pending' | 'paid';
  processorChargeId: string | null;
}

/**
 * A payment processor behind user subscriptions (docs/users.md). Sitebase keeps the ledger and
 * asks the processor for what a line still owes; collecting money is the processor's. A charge
 * it answers `pending` and settles later is reported back through
 * `SubscriptionChargesService.pay` (its webhook's handler), as an operator's pay route does. An
 * adapter is added only with the processor's official SDK and is active only when configured;
 * the built-in `manual` processor collects nothing and leaves every charge `pending` for the site
 * to settle its own way.
 */
export interface PaymentProcessor {
  readonly name: string;
  /** Runs inside the charge's transaction: an adapter that calls out must be quick and idempotent by `entryId`. */
  charge(request: ChargeRequest): Promise<ChargeOutcome>;
}

/** The built-in processor: records, never collects. */
export class ManualPaymentProcessor implements PaymentProcessor {
  readonly name = 'manual';

  charge(): Promise<ChargeOutcome> {
    return Promise.resolve({ status: 'pending', processorChargeId: null });
  }
}

/** The processors this installation knows, by name; `manual` always. */
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
