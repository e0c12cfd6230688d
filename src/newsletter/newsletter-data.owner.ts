import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { UserDataRegistry } from '../common/deletion/user-data.registry';
import { ImportEntity } from './entities/import.entity';
import { MembershipEntity } from './entities/membership.entity';
import { NewsletterListEntity } from './entities/newsletter-list.entity';
import { SigningKeyEntity } from './entities/signing-key.entity';
import { SubscriptionEntity } from './entities/subscription.entity';
import { SuppressionEntity } from './entities/suppression.entity';
import { SubscriptionsService } from './audience/subscriptions.service';
import { SeriesRepository } from './series/series.repository';
import { TrackingRepository } from './tracking/tracking.repository';
import { SeriesEnrollmentEntity } from './entities/series-enrollment.entity';
import { SeriesSendEntity } from './entities/series-send.entity';
import { SeriesStepEntity } from './entities/series-step.entity';
import { SeriesEntity, SeriesListEntity } from './entities/series.entity';
import { CampaignRecipientEntity } from './entities/campaign-recipient.entity';
import { CampaignEntity, CampaignLinkEntity, CampaignStatsEntity } from './entities/campaign.entity';
import { ListCountEntity, ListDailyEntity } from './entities/statistics.entity';
import { TrackingEventEntity } from './entities/tracking-event.entity';

/**
 * Account deletion: every newsletter table of the account's sites. A site user's erasure: the
 * subscription of their address (its memberships go with it), as a deletion: no hash is kept,
 * since the person asked to be forgotten.
 */
/** Campaigns' rows are found through their campaign (their keys lead with campaign_id). */
const CAMPAIGN = { column: 'campaign_id', parent: 'newsletter_campaigns' };
/** Series' rows are found through their series (their indexes lead with series_id). */
const SERIES = { column: 'series_id', parent: 'newsletter_series' };

@Injectable()
export class NewsletterDataOwner implements OnModuleInit {
  constructor(
    private readonly registry: AccountDataRegistry,
    private readonly users: UserDataRegistry,
    private readonly subscriptions: SubscriptionsService,
    private readonly series: SeriesRepository,
    private readonly tracking: TrackingRepository,
  ) {}

  onModuleInit(): void {
    // Nothing outside the module refers to these; before sites. Staged import rows go with their import.
    this.registry.register(
      tablesOwner('newsletter', 320, [
        // Series first: their enrollments refer to subscriptions, their trigger lists to lists.
        {
          resource: 'newsletter_series_sends',
          entity: SeriesSendEntity,
          via: { column: 'enrollment_id', parent: 'newsletter_series_enrollments', via: SERIES },
        },
        { resource: 'newsletter_series_enrollments', entity: SeriesEnrollmentEntity, via: SERIES },
        { resource: 'newsletter_series_steps', entity: SeriesStepEntity, via: SERIES },
        { resource: 'newsletter_series_lists', entity: SeriesListEntity, via: SERIES },
        { resource: 'newsletter_series', entity: SeriesEntity },
        { resource: 'newsletter_imports', entity: ImportEntity },
        {
          resource: 'newsletter_memberships',
          entity: MembershipEntity,
          via: { column: 'list_id', parent: 'newsletter_lists' },
        },
        { resource: 'newsletter_subscriptions', entity: SubscriptionEntity },
        { resource: 'newsletter_lists', entity: NewsletterListEntity },
        { resource: 'newsletter_suppressions', entity: SuppressionEntity },
        { resource: 'newsletter_signing_keys', entity: SigningKeyEntity },
      ]),
    );
    // Campaigns and their tracking refer to subscriptions and lists: before them.
    this.registry.register(
      tablesOwner('newsletter_campaigns', 315, [
        { resource: 'newsletter_tracking_events', entity: TrackingEventEntity, via: CAMPAIGN },
        { resource: 'newsletter_campaign_recipients', entity: CampaignRecipientEntity, via: CAMPAIGN },
        { resource: 'newsletter_campaign_links', entity: CampaignLinkEntity, via: CAMPAIGN },
        { resource: 'newsletter_campaign_stats', entity: CampaignStatsEntity, via: CAMPAIGN },
        { resource: 'newsletter_campaigns', entity: CampaignEntity },
        { resource: 'newsletter_list_daily', entity: ListDailyEntity },
        {
          resource: 'newsletter_list_counts',
          entity: ListCountEntity,
          via: { column: 'list_id', parent: 'newsletter_lists' },
        },
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
          resource: 'newsletter_series_enrollments',
          count: await this.series.enrollmentsOfAddress(em, site.id, user.email),
          action: 'delete',
        },
        {
          resource: 'newsletter_tracking_events',
          count: await this.tracking.eventsOfAddress(em, site.id, user.email),
          action: 'delete',
        },
      ],
      // The subscription's series enrollments (and what they were sent), campaign recipients and
      // tracking events go with it: ON DELETE CASCADE.
      erase: async (em, site, user) => {
        const enrollments = await this.series.enrollmentsOfAddress(em, site.id, user.email);
        const tracking = await this.tracking.eventsOfAddress(em, site.id, user.email);
        return {
          newsletter_subscriptions: await this.subscriptions.eraseByEmail(em, site, user.email),
          newsletter_series_enrollments: enrollments,
          newsletter_tracking_events: tracking,
        };
      },
    });
  }
}
