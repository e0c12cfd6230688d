import { Foundation1795287131613 } from './1795287131613-foundation';
import { Media1795287489049 } from './1795287489049-media';
import { Content1795287510654 } from './1795287510654-content';
import { OutboxRetries1795288516896 } from './1795288516896-outbox-retries';
import { ChangeNotifications1795290000000 } from './1795290000000-change-notifications';
import { Email1795300000000 } from './1795300000000-email';
import { Webhooks1795310000000 } from './1795310000000-webhooks';
import { ContentAttachmentIndex1795320000000 } from './1795320000000-content-attachment-index';
import { Catalog1795330000000 } from './1795330000000-catalog';
import { Users1795360000000 } from './1795360000000-users';
import { UserCredits1795370000000 } from './1795370000000-user-credits';
import { UserSubscriptions1795390000000 } from './1795390000000-user-subscriptions';
import { UserErasure1795380000000 } from './1795380000000-user-erasure';
import { Contacts1795350000000 } from './1795350000000-contacts';
import { Orders1795340000000 } from './1795340000000-orders';
import { Newsletter1795400000000 } from './1795400000000-newsletter';
import { EmailExtraHeaders1795410000000 } from './1795410000000-email-extra-headers';
import { NewsletterImportChunks1795415000000 } from './1795415000000-newsletter-import-chunks';
import { AccountDeletionIndexes1795416000000 } from './1795416000000-account-deletion-indexes';
import { NewsletterSeries1795430000000 } from './1795430000000-newsletter-series';
import { RecoverySweeps1795440000000 } from './1795440000000-recovery-sweeps';
import { NewsletterCampaigns1795420000000 } from './1795420000000-newsletter-campaigns';

import { CampaignMessageStatus1795450000000 } from './1795450000000-campaign-message-status';
import { ContentCounts1795460000000 } from './1795460000000-content-counts';
import { OrderExpiry1795510000000 } from './1795510000000-order-expiry';
import { OutboxParking1795520000000 } from './1795520000000-outbox-parking';
import { Bounces1795530000000 } from './1795530000000-bounces';
import { EmailMessageIdIndex1795560000000 } from './1795560000000-email-message-id-index';
import { ApiKeyPermissions1795570000000 } from './1795570000000-api-key-permissions';
import { PublishableKeys1795580000000 } from './1795580000000-publishable-keys';
import { ApiKeyRoll1795590000000 } from './1795590000000-api-key-roll';
import { SealedMailSecrets1795600000000 } from './1795600000000-sealed-mail-secrets';
import { NewsletterComplaints1795610000000 } from './1795610000000-newsletter-complaints';
import { OrderHoldLimits1795630000000 } from './1795630000000-order-hold-limits';
import { SubscriptionDunning1795640000000 } from './1795640000000-subscription-dunning';
import { Payments1795660000000 } from './1795660000000-payments';
import { ProcessorSync1795670000000 } from './1795670000000-processor-sync';
import { OrderProcessorPayments1795680000000 } from './1795680000000-order-processor-payments';
import { SiteDataNotifications1795700000000 } from './1795700000000-site-data-notifications';
import { RetentionIndexes1795710000000 } from './1795710000000-retention-indexes';
import { LeanMailCopies1795730000000 } from './1795730000000-lean-mail-copies';
import { SubscriptionChargeAttempts1795690000000 } from './1795690000000-subscription-charge-attempts';
import { TrackingWrite1795470000000 } from './1795470000000-tracking-write';
import { SenderDomains1795480000000 } from './1795480000000-sender-domains';
import { SubscriptionBilling1795490000000 } from './1795490000000-subscription-billing';
/**
 * Every migration, oldest first. Listed rather than globbed so that the server, the CLI and the
 * test set-up (which runs outside ts-node) load the same classes. `npm run migration:generate`
 * writes a new file here and adds its class to this list.
 */
export const MIGRATIONS = [
  Foundation1795287131613,
  Media1795287489049,
  Content1795287510654,
  OutboxRetries1795288516896,
  ChangeNotifications1795290000000,
  Email1795300000000,
  Webhooks1795310000000,
  ContentAttachmentIndex1795320000000,
  Catalog1795330000000,
  Orders1795340000000,
  Contacts1795350000000,
  Users1795360000000,
  UserCredits1795370000000,
  UserErasure1795380000000,
  UserSubscriptions1795390000000,
  Newsletter1795400000000,
  EmailExtraHeaders1795410000000,
  NewsletterImportChunks1795415000000,
  AccountDeletionIndexes1795416000000,
  NewsletterCampaigns1795420000000,
  NewsletterSeries1795430000000,
  RecoverySweeps1795440000000,
  CampaignMessageStatus1795450000000,
  ContentCounts1795460000000,
  TrackingWrite1795470000000,
  SenderDomains1795480000000,
  SubscriptionBilling1795490000000,
  OrderExpiry1795510000000,
  OutboxParking1795520000000,
  Bounces1795530000000,
  EmailMessageIdIndex1795560000000,
  ApiKeyPermissions1795570000000,
  PublishableKeys1795580000000,
  ApiKeyRoll1795590000000,
  SealedMailSecrets1795600000000,
  NewsletterComplaints1795610000000,
  OrderHoldLimits1795630000000,
  SubscriptionDunning1795640000000,
  Payments1795660000000,
  ProcessorSync1795670000000,
  OrderProcessorPayments1795680000000,
  SubscriptionChargeAttempts1795690000000,
  SiteDataNotifications1795700000000,
  RetentionIndexes1795710000000,
  LeanMailCopies1795730000000,
];
