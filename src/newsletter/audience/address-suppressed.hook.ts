import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { recordEvent } from '../../common/outbox/record-event';
import { SiteContext } from '../../common/tenancy/site-context';
import { AddressSuppressed, AddressUnsuppressed, SuppressionHooks } from '../../email/email.service';
import { NEWSLETTER_EVENTS } from '../newsletter.events';
import { ComplaintConsent } from './complaint-consent';
import { emailHash } from './subscription-writer';
import { SubscriptionsRepository } from './subscriptions.repository';

/**
 * A bounce or complaint report suppressed an address (docs/deliverability.md): its subscription
 * becomes `bounced` (from `deliverable` only) or `complained`, and a complaint unsubscribes it
 * from every list of the site (`reason: complaint`, by the person: a spam report is their word).
 * Campaigns and series mail only `deliverable` subscriptions, so they skip it from then on. Runs
 * in the report's transaction (the email module's SuppressionHooks), records the events there.
 */
@Injectable()
export class AddressSuppressedHook implements OnModuleInit {
  constructor(
    private readonly hooks: SuppressionHooks,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly complaints: ComplaintConsent,
  ) {}

  onModuleInit(): void {
    this.hooks.register(
      (em, site, change) => this.handle(em, site, change),
      (em, site, change) => this.lift(em, site, change),
    );
  }

  /**
   * A suppression lifted undoes its mark: `bounced` or (an operator's) `suppressed` becomes
   * `deliverable`. Lists are never joined again: what the suppression unsubscribed stays so, and
   * the person rejoins by subscribing. A complaint is lifted only by the person's re-consent,
   * which sets the subscription itself (ConfirmationsService).
   */
  async lift(em: EntityManager, site: SiteContext, change: AddressUnsuppressed): Promise<void> {
    if (change.reason === 'complained') return;
    const from = change.reason === 'bounced' ? 'bounced' : 'suppressed';
    await this.subscriptions.markDeliverable(em, site.id, change.email, from, emailHash(change.email));
  }

  async handle(em: EntityManager, site: SiteContext, change: AddressSuppressed): Promise<void> {
    if (change.reason === 'manual') {
      // An operator's suppression: as a blocklist import does, `suppressed` and off every list.
      const id = await this.subscriptions.markUndeliverable(em, site.id, change.email, 'suppressed');
      if (id === null) return;
      const listIds = await this.subscriptions.leaveAll(em, site.id, id, 'suppressed');
      if (listIds.length > 0)
        await recordEvent(em, site, NEWSLETTER_EVENTS.subscriptionUnsubscribed, {
          id,
          listIds,
          by: 'operator',
          reason: 'suppressed',
        });
      return;
    }
    const report = { messageId: change.messageId, campaignId: change.campaignId, source: change.source };
    if (change.reason === 'bounced') {
      const id = await this.subscriptions.markUndeliverable(em, site.id, change.email, 'bounced');
      if (id === null) return;
      await recordEvent(em, site, NEWSLETTER_EVENTS.subscriptionBounced, {
        id,
        ...report,
        kind: change.kind === 'soft' ? 'soft' : 'hard',
      });
      return;
    }
    // Kept by the address's hash even without a subscription (the complaint may answer an order
    // mail): no import, sync or bulk action adds the address later; mailed confirm links stop.
    await this.complaints.recordComplaint(em, site, change.email);
    const id = await this.subscriptions.markUndeliverable(em, site.id, change.email, 'complained');
    if (id === null) return;
    const listIds = await this.subscriptions.leaveAll(em, site.id, id, 'complaint');
    await recordEvent(em, site, NEWSLETTER_EVENTS.subscriptionComplained, { id, ...report, listIds });
    if (listIds.length > 0)
      await recordEvent(em, site, NEWSLETTER_EVENTS.subscriptionUnsubscribed, {
        id,
        listIds,
        by: 'person',
        reason: 'complaint',
      });
  }
}
