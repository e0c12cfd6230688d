import { defineEvents, event } from '../common/outbox/events';

export interface UserEventPayload {
  id: number;
  status: 'active' | 'disabled';
}

export interface UserUpdatedPayload extends UserEventPayload {
  /** The fields that changed (`name`, `email`, `metadata`, `status`). */
  fields: string[];
}

export interface UserSignedInPayload {
  id: number;
  sessionId: number;
}

export interface CreditsEventPayload {
  userId: number;
  entryId: number;
  /** Credits added (granted) or taken (spent), always positive. */
  amount: number;
  balance: number;
  reference: string | null;
}

/**
 * Events this module writes to the outbox. Payloads carry ids, not addresses or
 * names: webhooks send them out of the installation, and a user's personal data stays behind
 * the API (read the user for it).
 */
export const USER_EVENTS = defineEvents('users', {
  created: event<UserEventPayload>('user.created', 'A site user signed in for the first time'),
  updated: event<UserUpdatedPayload>('user.updated', 'A site user’s name, address, metadata or status changed'),
  signedIn: event<UserSignedInPayload>('user.signed_in', 'A site user signed in with a one-time code'),
  deleted: event<{ id: number }>('user.deleted', 'A site user was erased, at their request'),
  creditsGranted: event<CreditsEventPayload>('credits.granted', 'Credits were granted to a site user'),
  creditsSpent: event<CreditsEventPayload>('credits.spent', "Credits were spent from a site user's balance"),
});
