import { alternateSpellings } from '../../../test/support/token-spellings';
import { Problem } from '../errors/problems';
import { decodeCursor, encodeCursor } from './cursor';

describe('cursor encoding', () => {
  it('round-trips the sort key', () => {
    const c = encodeCursor(['2026-01-01T00:00:00.000Z', 42]);
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(c, ['string', 'number'])).toEqual(['2026-01-01T00:00:00.000Z', 42]);
  });

  it.each([
    ['not base64 json', '!!!'],
    ['wrong length', encodeCursor([1, 2])],
    ['wrong type', encodeCursor(['1'])],
    ['unsafe integer', encodeCursor([2 ** 60])],
    ['an object', Buffer.from('{"a":1}').toString('base64url')],
  ])('rejects %s with a 400 invalid_cursor', (_label, cursor) => {
    try {
      decodeCursor(cursor, ['number']);
      throw new Error('expected a problem');
    } catch (e) {
      expect(e).toBeInstanceOf(Problem);
      expect((e as Problem).getStatus()).toBe(400);
      expect((e as Problem).code).toBe('invalid_cursor');
    }
  });

  it('takes one spelling of a cursor: other base64url spellings and other JSON of the same values are a 400', () => {
    const c = encodeCursor(['2026-01-01T00:00:00.000Z', 42]);
    const others = [
      ...alternateSpellings(c),
      Buffer.from('[ "2026-01-01T00:00:00.000Z", 42 ]').toString('base64url'),
      Buffer.from('["2026-01-01T00:00:00.000Z",42.0]').toString('base64url'),
      Buffer.from('["2026-01-01T00:00:00.000Z",4.2e1]').toString('base64url'),
    ];
    expect(others.length).toBeGreaterThanOrEqual(10);
    for (const cursor of others) {
      expect(JSON.parse(Buffer.from(cursor, 'base64url').toString())).toEqual(['2026-01-01T00:00:00.000Z', 42]);
      expect(() => decodeCursor(cursor, ['timestamp', 'number'])).toThrow(Problem);
    }
  });

  it('takes timestamps only as encodeCursor writes them, in years 0001-9999', () => {
    const ok = encodeCursor(['2026-01-01T00:00:00.000Z', 42]);
    expect(decodeCursor(ok, ['timestamp', 'number'])).toEqual(['2026-01-01T00:00:00.000Z', 42]);
    for (const forged of ['+275760-09-13T00:00:00.000Z', '2024-02-30T00:00:00.000Z', '2026-01-01', 'not a date', 1]) {
      expect(() => decodeCursor(encodeCursor([forged, 1]), ['timestamp', 'number'])).toThrow(Problem);
    }
  });
});
