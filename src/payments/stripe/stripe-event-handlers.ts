import { Injectable } from '@nestjs/common';
import type Stripe from 'stripe';
import type { EntityManager } from 'typeorm';
import type { SiteContext } from '../../common/tenancy/site-context';
import type { PaymentMode } from '../entities/payment-account.entity';

/** What a handler is given: the verified event, the site it was posted to and its mode. */
export interface StripeEventContext {
  site: SiteContext;
  mode: PaymentMode;
  event: Stripe.Event;
}

/**
 * Applies one verified event in the transaction that claims its id: DB work only (a call to
 * Stripe is queued as a job, never made here). `ignored`: the event is not about an object of
 * Sitebase's (another integration's payment on the same account), or asks for nothing.
 */
export type StripeEventHandler = (em: EntityManager, context: StripeEventContext) => Promise<'applied' | 'ignored'>;

/**
 * The event types Sitebase acts on, each with its handler; the adapters (orders, subscriptions)
 * register theirs in onModuleInit. Any other type is acknowledged and recorded as `ignored`.
 */
@Injectable()
export class StripeEventHandlers {
  private readonly handlers = new Map<string, StripeEventHandler[]>();

  on(types: string | string[], handler: StripeEventHandler): void {
    for (const type of Array.isArray(types) ? types : [types]) {
      this.handlers.set(type, [...(this.handlers.get(type) ?? []), handler]);
    }
  }

  types(): string[] {
    return [...this.handlers.keys()].sort();
  }

  /** Runs every handler of the event's type; `applied` when one of them applied it. */
  async apply(em: EntityManager, context: StripeEventContext): Promise<'applied' | 'ignored'> {
    let outcome: 'applied' | 'ignored' = 'ignored';
    for (const handler of this.handlers.get(context.event.type) ?? []) {
      if ((await handler(em, context)) === 'applied') outcome = 'applied';
    }
    return outcome;
  }
}
