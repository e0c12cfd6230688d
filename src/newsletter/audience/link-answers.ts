import { Problem } from '../../common/errors/problems';
import { MembershipStatus } from '../entities/membership.entity';
import { SubscriptionEntity } from '../entities/subscription.entity';

/** Where an address stands on each of its lists, with the lists' names. */
export interface ListStanding {
  listId: number;
  name: string;
  status: MembershipStatus;
}

/** What a mail link did (or would do): the address and its lists as they now stand. */
export interface LinkOutcome {
  subscription: SubscriptionEntity | null;
  lists: ListStanding[];
}

export const invalidToken = () =>
  new Problem({ status: 400, code: 'invalid_token', title: 'Invalid link', detail: 'This link is not valid' });

export const expiredToken = () =>
  new Problem({
    status: 410,
    code: 'token_expired',
    title: 'Link expired',
    detail: 'This confirmation link has expired; subscribe again to get a new one',
  });

export const usedToken = () =>
  new Problem({
    status: 410,
    code: 'token_used',
    title: 'Link already used',
    detail: 'This confirmation link was already used or replaced by a newer one',
  });

/** An ordinary confirmation link of an address that complained since: it lifts nothing. */
export const complainedAddress = () =>
  new Problem({
    status: 409,
    code: 'address_complained',
    title: 'Confirmation needed',
    detail:
      'This address reported mail from this site as spam. To receive it again, subscribe again: ' +
      'a new mail will ask you to confirm',
  });
