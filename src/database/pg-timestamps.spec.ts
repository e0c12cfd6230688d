import fc from 'fast-check';
import { types } from 'pg';
import { parseTimestamptz } from './pg-timestamps';

/** pg's own parser of `timestamptz` (postgres-date): what the fast one must equal. */
const original = types.getTypeParser(1184, 'text') as (value: string) => Date | number | null;

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Text in PostgreSQL's ISO output form, with every part free to vary (and some out of range). */
const timestamptz = fc
  .record({
    year: fc.integer({ min: 1000, max: 9999 }),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
    hour: fc.integer({ min: 0, max: 24 }),
    minute: fc.integer({ min: 0, max: 60 }),
    second: fc.integer({ min: 0, max: 60 }),
    fraction: fc.option(fc.stringMatching(/^[0-9]{1,6}$/), { nil: undefined }),
    sign: fc.constantFrom('+', '-'),
    offsetHours: fc.integer({ min: 0, max: 15 }),
    offsetMinutes: fc.option(fc.constantFrom(0, 30, 45, 59), { nil: undefined }),
  })
  .map(
    (t) =>
      `${pad(t.year, 4)}-${pad(t.month, 2)}-${pad(t.day, 2)} ${pad(t.hour, 2)}:${pad(t.minute, 2)}:${pad(t.second, 2)}` +
      `${t.fraction === undefined ? '' : `.${t.fraction}`}${t.sign}${pad(t.offsetHours, 2)}` +
      `${t.offsetMinutes === undefined ? '' : `:${pad(t.offsetMinutes, 2)}`}`,
  );

describe('parseTimestamptz', () => {
  it('reads what PostgreSQL sends exactly as postgres-date does', () => {
    expect(parseTimestamptz('2026-11-25 20:11:07.08871+00')!.toISOString()).toBe('2026-11-25T20:11:07.088Z');
    expect(parseTimestamptz('2026-01-01 00:00:00+05:30')!.toISOString()).toBe('2025-12-31T18:30:00.000Z');
    fc.assert(
      fc.property(timestamptz, (text) => {
        const mine = parseTimestamptz(text);
        expect(mine).not.toBeNull();
        expect(mine!.getTime()).toEqual((original(text) as Date).getTime());
      }),
      { seed: 20261125, numRuns: 10000 },
    );
  });

  it('leaves every other form to postgres-date', () => {
    for (const text of [
      'infinity',
      '-infinity',
      '2026-11-25',
      '0099-01-01 00:00:00+00',
      '2026-11-25 20:11:07+00 BC',
      '2026-11-25 20:11:07+05:30:15',
      '2026-11-25 20:11:07',
      '2026-11-25T20:11:07Z',
      '12026-11-25 20:11:07+00',
      '2026-11-25 20:11:07.+00',
      '2026-11-25 20:11:07.5+0',
      'Wed Nov 25 20:11:07 2026 UTC',
    ])
      expect(parseTimestamptz(text)).toBeNull();
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const mine = parseTimestamptz(text);
        if (mine !== null) expect(mine.getTime()).toEqual((original(text) as Date).getTime());
      }),
      { seed: 20261125, numRuns: 5000 },
    );
  });
});
