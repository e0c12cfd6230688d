import { defineEvents, event } from '../common/outbox/events';
import type { ListVisibility } from './entities/newsletter-list.entity';
import type { SeriesStatus } from './entities/series.entity';

/**
 * What integrators learn of a subscription: ids, lists and where it came from. Never the
 * address, name or attributes: webhooks carry payloads out of Sitebase, so read the
 * subscription through the API (a key) for those (docs/newsletter.md).
 */
export interface SubscriptionCreatedPayload {
  id: number;
  source: string;
  listIds: number[];
}

export interface SubscriptionListsPayload {
  id: number;
  /** The lists this change concerns. */
  listIds: number[];
}

export interface SubscriptionUnsubscribedPayload extends SubscriptionListsPayload {
  /** `person` (a link or the public route) or `operator` (a key). */
  by: 'person' | 'operator';
  reason: string | null;
}

/** A report (docs/deliverability.md) about a message sent to the subscription's address. */
export interface SubscriptionReportPayload {
  id: number;
  /** The email message the report answered (GET …/email/messages/{id}). */
  messageId: number;
  /** The campaign that message was a copy of, else null (a series step, a confirmation…). */
  campaignId: number | null;
  /** Where the report came from: `dsn`, `arf`, or a provider. */
  source: string;
}

export interface SubscriptionBouncedPayload extends SubscriptionReportPayload {
  /** `hard` (5.x.x), or `soft` once the site's soft-bounce limit was reached. */
  kind: 'hard' | 'soft';
}

export interface SubscriptionComplainedPayload extends SubscriptionReportPayload {
  /** The lists the complaint unsubscribed it from. */
  listIds: number[];
}

export interface ListEventPayload {
  id: number;
  name: string;
  doubleOptIn: boolean;
  visibility: ListVisibility;
}

export interface SeriesEventPayload {
  id: number;
  name: string;
  status: SeriesStatus;
  /** The trigger lists. */
  listIds: number[];
  /** How many steps (mails) it has. */
  steps: number;
}

/** What integrators learn of a campaign's moves: never its content or its recipients. */
export interface CampaignEventPayload {
  id: number;
  slug: string;
  status: string;
  scheduledAt: string | null;
  /** Recipients handed to the email module so far. */
  sent: number;
}

/** Events this module writes to the outbox (docs/events.md). */
export const NEWSLETTER_EVENTS = defineEvents('newsletter', {
  subscriptionCreated: event<SubscriptionCreatedPayload>(
    'newsletter.subscription.created',
    'An address joined the site’s audience (subscribe, or an operator adding it)',
  ),
  subscriptionConfirmed: event<SubscriptionListsPayload>(
    'newsletter.subscription.confirmed',
    'Memberships became active: confirmed by the person, a single opt-in list, or consent given by an operator',
  ),
  subscriptionUnsubscribed: event<SubscriptionUnsubscribedPayload>(
    'newsletter.subscription.unsubscribed',
    'An address left one or more lists',
  ),
  subscriptionDeleted: event<{ id: number }>(
    'newsletter.subscription.deleted',
    'A subscription and its personal data were deleted',
  ),
  subscriptionBounced: event<SubscriptionBouncedPayload>(
    'newsletter.subscription.bounced',
    'Mail to the address bounced for good: it is `bounced` and gets no more campaigns or series steps',
  ),
  subscriptionComplained: event<SubscriptionComplainedPayload>(
    'newsletter.subscription.complained',
    'The address’s owner reported a mail as spam: it is `complained` and unsubscribed from every list',
  ),
  listCreated: event<ListEventPayload>('newsletter.list.created', 'A newsletter list was created'),
  listUpdated: event<ListEventPayload>('newsletter.list.updated', 'A newsletter list was changed'),
  listDeleted: event<ListEventPayload>(
    'newsletter.list.deleted',
    'A newsletter list was deleted with its memberships (the subscribers stay)',
  ),
  seriesCreated: event<SeriesEventPayload>('newsletter.series.created', 'A newsletter series was created'),
  seriesUpdated: event<SeriesEventPayload>(
    'newsletter.series.updated',
    'A newsletter series was changed: its name, trigger lists or steps, or paused or resumed',
  ),
  seriesDeleted: event<SeriesEventPayload>(
    'newsletter.series.deleted',
    'A newsletter series was deleted with its enrollments: nobody receives its steps any more',
  ),
  campaignScheduled: event<CampaignEventPayload>(
    'newsletter.campaign.scheduled',
    'A campaign was scheduled: its send starts at `scheduledAt`',
  ),
  campaignSent: event<CampaignEventPayload>(
    'newsletter.campaign.sent',
    'A campaign’s send ended: every recipient was handed to the email module',
  ),
  campaignPaused: event<CampaignEventPayload>(
    'newsletter.campaign.paused',
    'A campaign’s send was paused; the recipients not yet mailed wait',
  ),
  campaignCanceled: event<CampaignEventPayload>(
    'newsletter.campaign.canceled',
    'A campaign was canceled; nobody else receives it',
  ),
});
