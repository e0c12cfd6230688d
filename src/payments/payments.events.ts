import { defineEvents, event } from '../common/outbox/events';
import type { PaymentMode } from './entities/payment-account.entity';

/** A site's payment connection, as integrators see it: never a key. */
export interface PaymentAccountPayload {
  processor: 'stripe' | 'manual';
  mode: PaymentMode | null;
  testConnected: boolean;
  liveConnected: boolean;
}

/** Events this module writes to the outbox (docs/events.md). */
export const PAYMENTS_EVENTS = defineEvents('payments', {
  accountUpdated: event<PaymentAccountPayload>(
    'payment_account.updated',
    'A site was connected to Stripe, its keys or charging mode changed, or it was disconnected (`processor: manual`)',
  ),
});
