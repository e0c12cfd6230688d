import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { UserDataRegistry } from '../common/deletion/user-data.registry';
import { ImportEntity } from './entities/import.entity';
import { MembershipEntity } from './entities/membership.entity';
import { NewsletterListEntity } from './entities/newsletter-list.entity';
import { SigningKeyEntity } from './entities/signing-key.entity';
import { SubscriptionEntity } from './entities/subscription.entity';
import { SuppressionEntity } from './entities/suppression.entity';
import { SubscriptionsService } from './subscriptions.service';
import { CampaignRecipientEntity } from './entities/campaign-recipient.entity';
import { CampaignEntity, CampaignLinkEntity, CampaignStatsEntity } from './entities/campaign.entity';
import { ListCountEntity, ListDailyEntity } from './entities/statistics.entity';
import { TrackingEventEntity } from './entities/tracking-event.entity';

/**
 * Account deletion: every newsletter table of the account's sites. A site user's erasure: the
 * subscription of their address (its memberships go with it), as a deletion: no hash is kept,
 * since the person asked to be forgotten.
 */
@Injectable()
export class NewsletterDataOwner implements OnModuleInit {
  constructor(
    private readonly registry: AccountDataRegistry,
    private readonly users: UserDataRegistry,
    private readonly subscriptions: SubscriptionsService,
  ) {}

  onModuleInit(): void {
    // Nothing outside the module refers to these; before sites. Staged import rows go with their import.
    this.registry.register(
      tablesOwner('newsletter', 320, [
        { resource: 'newsletter_imports', entity: ImportEntity },
        { resource: 'newsletter_memberships', entity: MembershipEntity },
        { resource: 'newsletter_subscriptions', entity: SubscriptionEntity },
        { resource: 'newsletter_lists', entity: NewsletterListEntity },
        { resource: 'newsletter_suppressions', entity: SuppressionEntity },
        { resource: 'newsletter_signing_keys', entity: SigningKeyEntity },
      ]),
    );
    // Campaigns and their tracking refer to subscriptions and lists: before them.
    this.registry.register(
      tablesOwner('newsletter_campaigns', 315, [
        { resource: 'newsletter_tracking_events', entity: TrackingEventEntity },
        { resource: 'newsletter_campaign_recipients', entity: CampaignRecipientEntity },
        { resource: 'newsletter_campaign_links', entity: CampaignLinkEntity },
        { resource: 'newsletter_campaign_stats', entity: CampaignStatsEntity },
        { resource: 'newsletter_campaigns', entity: CampaignEntity },
        { resource: 'newsletter_list_daily', entity: ListDailyEntity },
        { resource: 'newsletter_list_counts', entity: ListCountEntity },
      ]),
    );
    this.users.register({
      name: 'newsletter',
      order: 310,
      preview: async (em, site, user) => [
        {
          resource: 'newsletter_subscriptions',
          count: await em.count(SubscriptionEntity, { where: { siteId: site.id, email: user.email } }),
          action: 'delete',
        },
        {
          resource: 'newsletter_tracking_events',
          count: await trackingOf(em, site.id, user.email),
          action: 'delete',
        },
      ],
      // Their campaign recipients and tracking events go with the subscription (cascade).
      erase: async (em, site, user) => {
        const tracking = await trackingOf(em, site.id, user.email);
        return {
          newsletter_subscriptions: await this.subscriptions.eraseByEmail(em, site, user.email),
          newsletter_tracking_events: tracking,
        };
      },
    });
  }
}

/** The opens and clicks recorded for an address of a site. */
function trackingOf(em: EntityManager, siteId: number, email: string): Promise<number> {
  return em
    .createQueryBuilder(TrackingEventEntity, 't')
    .innerJoin(SubscriptionEntity, 's', 's.id = t.subscription_id')
    .where('s.site_id = :siteId AND s.email = :email AND t.site_id = :siteId', {
      siteId,
      email: email.trim().toLowerCase(),
    })
    .getCount();
}
