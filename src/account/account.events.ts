import { defineEvents, event } from '../common/outbox/events';

export interface SiteCreatedPayload {
  id: number;
  name: string;
}

export interface AccountDeletionScheduledPayload {
  id: number;
  purgeAfter: string;
}

export interface AccountDeletionCanceledPayload {
  id: number;
}

/** Events this module writes to the outbox. */
export const ACCOUNT_EVENTS = defineEvents('account', {
  siteCreated: event<SiteCreatedPayload>('site.created', 'A site was created in the account'),
  siteUpdated: event<SiteCreatedPayload>('site.updated', "A site's title or settings changed"),
  deletionScheduled: event<AccountDeletionScheduledPayload>(
    'account.deletion_scheduled',
    'The account asked to be deleted; its data is purged after the grace period',
  ),
  deletionCanceled: event<AccountDeletionCanceledPayload>(
    'account.deletion_canceled',
    'A scheduled deletion of the account was canceled',
  ),
});
