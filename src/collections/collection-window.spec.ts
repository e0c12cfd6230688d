import { Problem } from '../common/errors/problems';
import { assertWindow } from './collection-window';

const d = (iso: string) => new Date(iso);

describe('collection windows', () => {
  it('accepts no window, an open-ended one and a proper one', () => {
    expect(() => assertWindow({ startsAt: null, endsAt: null })).not.toThrow();
    expect(() => assertWindow({ startsAt: d('2026-01-01T00:00:00Z'), endsAt: null })).not.toThrow();
    expect(() =>
      assertWindow({ startsAt: d('2026-01-01T00:00:00Z'), endsAt: d('2026-02-01T00:00:00Z') }),
    ).not.toThrow();
  });

  it.each([
    ['an end without a start', { startsAt: null, endsAt: d('2026-02-01T00:00:00Z') }, 'needs startsAt'],
    [
      'an end before the start',
      { startsAt: d('2026-02-01T00:00:00Z'), endsAt: d('2026-01-01T00:00:00Z') },
      'must be after startsAt',
    ],
    [
      'an empty window',
      { startsAt: d('2026-02-01T00:00:00Z'), endsAt: d('2026-02-01T00:00:00Z') },
      'must be after startsAt',
    ],
  ])('rejects %s with a 400 on endsAt', (_label, window, message) => {
    try {
      assertWindow(window);
      throw new Error('expected a problem');
    } catch (e) {
      expect((e as Problem).getStatus()).toBe(400);
      expect((e as Problem).errors).toEqual([{ path: 'endsAt', message }]);
    }
  });
});
