import type { MembershipStatus } from '../entities/membership.entity';

/**
 * Who moves a membership: the person (subscribe, confirm, unsubscribe links), an operator with a
 * key (status, list-membership, bulk), or a mass write (import, sync).
 */
export type Actor = 'person' | 'operator' | 'operator-with-consent' | 'mass' | 'mass-with-consent';

/**
 * The moves each actor may make (docs/newsletter.md, "States"): `pending -> active` by
 * confirmation or with consent the caller vouches for; leaving is always allowed; and only the
 * person brings an `unsubscribed` membership back. A move to the same status is no move.
 */
const MOVES: Record<Actor, ReadonlyArray<`${MembershipStatus}>${MembershipStatus}`>> = {
  person: [
    'pending>active',
    'pending>unsubscribed',
    'active>unsubscribed',
    'unsubscribed>active',
    'unsubscribed>pending',
  ],
  operator: ['pending>unsubscribed', 'active>unsubscribed'],
  'operator-with-consent': ['pending>active', 'pending>unsubscribed', 'active>unsubscribed'],
  mass: ['pending>unsubscribed', 'active>unsubscribed'],
  'mass-with-consent': ['pending>active', 'pending>unsubscribed', 'active>unsubscribed'],
};

export function canMove(actor: Actor, from: MembershipStatus, to: MembershipStatus): boolean {
  return from === to || MOVES[actor].includes(`${from}>${to}`);
}
