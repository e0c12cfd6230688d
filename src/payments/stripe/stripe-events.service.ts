import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UnauthorizedProblem } from '../../common/errors/problems';
import { SiteContext } from '../../common/tenancy/site-context';
import { PaymentAccountsService } from '../payment-accounts.service';
import { PaymentEventsRepository } from '../payment-events.repository';
import { StripeClients } from './stripe-clients';
import { StripeEventHandlers } from './stripe-event-handlers';

export interface StripeEventOutcome {
  id: string;
  type: string;
  outcome: 'applied' | 'ignored';
  replayed: boolean;
}

/**
 * Stripe's events for one site (docs/payments.md, "Events"): verified with the site's webhook
 * secret of either mode (stripe.webhooks.constructEvent: HMAC-SHA256 and the timestamp within
 * STRIPE_WEBHOOK_TOLERANCE_SECONDS), the event's `livemode` agreeing with the secret's mode; then,
 * in one transaction, its id claimed and its handlers run. A redelivery changes nothing.
 */
@Injectable()
export class StripeEventsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: PaymentAccountsService,
    private readonly clients: StripeClients,
    private readonly handlers: StripeEventHandlers,
    private readonly events: PaymentEventsRepository,
  ) {}

  async receive(site: SiteContext, raw: Buffer, signature: string | undefined): Promise<StripeEventOutcome> {
    const secrets = await this.accounts.webhookSecrets(site.id);
    const verified = signature
      ? this.clients.verifyEvent(
          raw,
          signature,
          secrets.map((s) => s.secret),
        )
      : null;
    const mode = verified ? secrets.find((s) => s.secret === verified.secret)!.mode : null;
    if (!verified || !mode || verified.event.livemode !== (mode === 'live'))
      throw new UnauthorizedProblem(
        'invalid_processor_signature',
        'The Stripe-Signature header does not verify with the site’s webhook secret, or is too old',
      );
    const { event } = verified;
    const object = event.data?.object as { id?: unknown } | undefined;
    const objectId = typeof object?.id === 'string' ? object.id.slice(0, 255) : null;
    return this.dataSource.transaction(async (em) => {
      if (!(await this.events.claim(em, site.id, { id: event.id, type: event.type, objectId }, mode)))
        return {
          id: event.id,
          type: event.type,
          outcome: await this.events.outcomeOf(em, site.id, event.id),
          replayed: true,
        };
      const outcome = await this.handlers.apply(em, { site, mode, event });
      if (outcome === 'applied') await this.events.setOutcome(em, site.id, event.id, outcome);
      return { id: event.id, type: event.type, outcome, replayed: false };
    });
  }
}
