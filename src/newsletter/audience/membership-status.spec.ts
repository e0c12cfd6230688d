import { MEMBERSHIP_STATUSES } from '../entities/membership.entity';
import { Actor, canMove } from './membership-status';

describe('membership moves', () => {
  const table = (actor: Actor) =>
    MEMBERSHIP_STATUSES.flatMap((from) =>
      MEMBERSHIP_STATUSES.filter((to) => to !== from && canMove(actor, from, to)).map((to) => `${from}>${to}`),
    );

  it('the person may do everything but go back to pending from active', () => {
    expect(table('person')).toEqual([
      'pending>active',
      'pending>unsubscribed',
      'active>unsubscribed',
      'unsubscribed>pending',
      'unsubscribed>active',
    ]);
  });

  it('operators and mass writes never re-subscribe; only consent activates a pending one', () => {
    expect(table('operator')).toEqual(['pending>unsubscribed', 'active>unsubscribed']);
    expect(table('mass')).toEqual(['pending>unsubscribed', 'active>unsubscribed']);
    expect(table('operator-with-consent')).toEqual(['pending>active', 'pending>unsubscribed', 'active>unsubscribed']);
    expect(table('mass-with-consent')).toEqual(table('operator-with-consent'));
  });

  it('staying put is always allowed', () => {
    for (const s of MEMBERSHIP_STATUSES) expect(canMove('mass', s, s)).toBe(true);
  });
});
