import { AddressSuppressedHook } from './audience/address-suppressed.hook';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountModule } from '../account/account.module';
import { EmailModule } from '../email/email.module';
import { UsersModule } from '../users/users.module';
import { AudienceService } from './audience/audience.service';
import { ComplaintConsent } from './audience/complaint-consent';
import { ConfirmationsService } from './audience/confirmations.service';
import { BulkService } from './bulk-import/bulk.service';
import { ImportJob } from './bulk-import/import.job';
import { ImportRepository } from './bulk-import/import.repository';
import { ImportService } from './bulk-import/import.service';
import {
  NewsletterImportsController,
  SubscriptionActionsController,
} from './bulk-import/subscription-actions.controller';
import { ImportChunkEntity } from './entities/import-chunk.entity';
import { ImportEntity } from './entities/import.entity';
import { MembershipEntity } from './entities/membership.entity';
import { NewsletterListEntity } from './entities/newsletter-list.entity';
import { SigningKeyEntity } from './entities/signing-key.entity';
import { SubscriptionEntity } from './entities/subscription.entity';
import { SuppressionEntity } from './entities/suppression.entity';
import { NewsletterListsController } from './audience/lists.controller';
import { ListsService } from './audience/lists.service';
import { NewsletterDataOwner } from './newsletter-data.owner';
import { NewsletterLinks } from './links/newsletter-links.service';
import { NewsletterMailTypes } from './audience/newsletter-mail-types';
import { PublicNewsletterController } from './public/public.controller';
import { PublicPages } from './public/public-pages.service';
import { SubscriptionWriter } from './audience/subscription-writer';
import { SubscriptionsController } from './audience/subscriptions.controller';
import { SubscriptionsBulkRepository } from './audience/subscriptions-bulk.repository';
import { SubscriptionsRepository } from './audience/subscriptions.repository';
import { SubscriptionsService } from './audience/subscriptions.service';
import { SeriesEnrollmentEntity } from './entities/series-enrollment.entity';
import { SeriesSendEntity } from './entities/series-send.entity';
import { SeriesStepEntity } from './entities/series-step.entity';
import { SeriesEntity, SeriesListEntity } from './entities/series.entity';
import { NewsletterSeriesController } from './series/series.controller';
import { SeriesRepository } from './series/series.repository';
import { SeriesService } from './series/series.service';
import { SeriesSweepJob } from './series/series-sweep.job';
import { CampaignCopies } from './campaigns/campaign-copies';
import { CampaignMail } from './campaigns/campaign-mail';
import { CampaignSendJob } from './campaigns/campaign-send.job';
import { CampaignSender } from './campaigns/campaign-sender';
import { CampaignsController } from './campaigns/campaigns.controller';
import { CampaignChecks } from './campaigns/campaign-checks';
import { CampaignsService } from './campaigns/campaigns.service';
import { CampaignRecipientEntity } from './entities/campaign-recipient.entity';
import { CampaignEntity, CampaignLinkEntity, CampaignStatsEntity } from './entities/campaign.entity';
import { ListCountEntity, ListDailyEntity } from './entities/statistics.entity';
import { TrackingEventEntity } from './entities/tracking-event.entity';
import { NewsletterStatisticsController } from './statistics/statistics.controller';
import { StatisticsService } from './statistics/statistics.service';
import { TrackingController } from './tracking/tracking.controller';
import { TrackingService } from './tracking/tracking.service';
import { AnswersProblems } from '../common/errors/problem-codes';
import { NEWSLETTER_PROBLEMS } from './newsletter.problems';
import { ListsRepository } from './audience/lists.repository';
import { SigningKeysRepository } from './links/signing-keys.repository';
import { CampaignsRepository } from './campaigns/campaigns.repository';
import { TrackingRepository } from './tracking/tracking.repository';
import { NewsletterRetention } from './newsletter-retention';
import { StatisticsRepository } from './statistics/statistics.repository';

/**
 * The newsletter audience (docs/newsletter.md): lists, subscriptions and their memberships,
 * double opt-in with hosted pages, bulk actions, import and sync; campaigns with their delivery, open and
 * click tracking, and statistics.
 */
@AnswersProblems(NEWSLETTER_PROBLEMS)
@Module({
  imports: [
    TypeOrmModule.forFeature([
      NewsletterListEntity,
      SubscriptionEntity,
      MembershipEntity,
      SuppressionEntity,
      SigningKeyEntity,
      ImportEntity,
      ImportChunkEntity,
      SeriesEntity,
      SeriesListEntity,
      SeriesStepEntity,
      SeriesEnrollmentEntity,
      SeriesSendEntity,
      CampaignEntity,
      CampaignStatsEntity,
      CampaignLinkEntity,
      CampaignRecipientEntity,
      TrackingEventEntity,
      ListCountEntity,
      ListDailyEntity,
    ]),
    AccountModule,
    EmailModule,
    UsersModule,
  ],
  controllers: [
    NewsletterListsController,
    SubscriptionsController,
    SubscriptionActionsController,
    NewsletterImportsController,
    PublicNewsletterController,
    NewsletterSeriesController,
    CampaignsController,
    TrackingController,
    NewsletterStatisticsController,
  ],
  providers: [
    SubscriptionsRepository,
    SubscriptionsBulkRepository,
    ListsRepository,
    ListsService,
    SubscriptionsService,
    AudienceService,
    ConfirmationsService,
    ComplaintConsent,
    SubscriptionWriter,
    SigningKeysRepository,
    NewsletterLinks,
    PublicPages,
    NewsletterMailTypes,
    NewsletterDataOwner,
    BulkService,
    ImportRepository,
    ImportService,
    ImportJob,
    SeriesRepository,
    SeriesService,
    SeriesSweepJob,
    CampaignMail,
    CampaignCopies,
    CampaignsRepository,
    CampaignsService,
    CampaignChecks,
    CampaignSender,
    CampaignSendJob,
    TrackingRepository,
    NewsletterRetention,
    TrackingService,
    StatisticsRepository,
    StatisticsService,
    AddressSuppressedHook,
  ],
  exports: [SubscriptionsService, ListsService, BulkService],
})
export class NewsletterModule {}
