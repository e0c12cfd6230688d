import { callerMayMove, EDITABLE_STATUSES } from './campaign-status';

describe('campaign states', () => {
  it('lets a caller schedule, unschedule, pause, resume and cancel as API.md §5 says', () => {
    expect(callerMayMove('draft', 'scheduled')).toBe(true);
    expect(callerMayMove('scheduled', 'draft')).toBe(true);
    expect(callerMayMove('sending', 'paused')).toBe(true);
    expect(callerMayMove('paused', 'sending')).toBe(true);
    for (const from of ['draft', 'scheduled', 'paused'] as const) expect(callerMayMove(from, 'canceled')).toBe(true);
  });

  it('refuses the rest', () => {
    expect(callerMayMove('sending', 'canceled')).toBe(false);
    expect(callerMayMove('draft', 'sending')).toBe(false);
    expect(callerMayMove('draft', 'sent')).toBe(false);
    expect(callerMayMove('sent', 'draft')).toBe(false);
    expect(callerMayMove('canceled', 'draft')).toBe(false);
    expect(callerMayMove('paused', 'scheduled')).toBe(false);
  });

  it('keeps content editable only while draft, scheduled or paused', () => {
    expect([...EDITABLE_STATUSES].sort()).toEqual(['draft', 'paused', 'scheduled']);
  });
});
