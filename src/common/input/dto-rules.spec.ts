import { plainToInstance } from 'class-transformer';
import { IsInt, IsOptional, IsString, validateSync } from 'class-validator';
import {
  IsIdOrSlug,
  IsIdParam,
  IsTimestamp,
  MAX_ID,
  NestedArray,
  OptionalNotNull,
  parseId,
  parseTimestamp,
  toInteger,
} from './dto-rules';

describe('parseId', () => {
  it.each(['1', '42', '9007199254740991'])('accepts %s', (text) => {
    expect(parseId(text)).toBe(Number(text));
  });

  it.each([
    '0',
    '01',
    '0x1',
    '1e0',
    '+1',
    '-1',
    '1.0',
    ' 1',
    '1 ',
    '1\t',
    '',
    'abc',
    '9007199254740992',
    '99999999999999999999',
    '１',
  ])('refuses %j', (text) => {
    expect(parseId(text)).toBeNull();
  });

  it('tops out at the largest id a JSON number carries exactly', () => {
    expect(MAX_ID).toBe(2 ** 53 - 1);
  });
});

describe('toInteger', () => {
  it.each([
    ['0', 0],
    ['20', 20],
    ['-4', -4],
  ])('reads %s', (text, n) => {
    expect(toInteger({ value: text })).toBe(n);
  });

  it.each(['01', '+1', '1e1', '0x10', ' 1', '1.0', '-0'])('leaves %j for the type check to refuse', (text) => {
    expect(toInteger({ value: text })).toBe(text);
  });
});

describe('parseTimestamp', () => {
  it.each([
    ['2030-01-01T09:00:00Z', '2030-01-01T09:00:00.000Z'],
    ['2030-01-01t09:00:00z', '2030-01-01T09:00:00.000Z'],
    ['2030-01-01T10:00:00.5+01:00', '2030-01-01T09:00:00.500Z'],
    ['2030-01-01T09:00:00.123456789Z', '2030-01-01T09:00:00.123Z'],
    ['2024-02-29T00:00:00-05:30', '2024-02-29T05:30:00.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['0099-06-01T00:00:00Z', '0099-06-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
  ])('reads %s', (text, iso) => {
    expect(parseTimestamp(text)?.toISOString()).toBe(iso);
  });

  it.each([
    '+010000-01-01T00:00:00.000Z',
    '10000-01-01T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59-01:00',
    '0001-01-01T00:00:00+01:00',
    '2024-02-30T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-01-01T24:00:00Z',
    '2024-01-01T00:60:00Z',
    '2024-01-01T00:00:60Z',
    '2024-01-01T00:00:00+24:00',
    '2024-01-01T00:00:00',
    '2024-01-01',
    '2024-01-01 00:00:00Z',
    ' 2024-01-01T00:00:00Z',
    'tomorrow',
    '1700000000000',
    '',
  ])('refuses %j', (text) => {
    expect(parseTimestamp(text)).toBeNull();
  });
});

class AuthorLike {
  @IsInt() id: number;
  @IsString() name: string;
}

class Probe {
  @IsOptional() @IsIdParam() id?: number;
  @IsOptional() @IsString() @IsIdOrSlug() ref?: string;
  @IsOptional() @IsTimestamp() when?: Date | null;
  @OptionalNotNull() @IsString() title?: string;
  @OptionalNotNull() @NestedArray(() => AuthorLike, 3) authors?: AuthorLike[];
}

function errorsOf(plain: Record<string, unknown>): Record<string, string[]> {
  const errors = validateSync(plainToInstance(Probe, plain), { whitelist: true, forbidNonWhitelisted: true });
  const flat: Record<string, string[]> = {};
  const walk = (list: typeof errors, parent: string) => {
    for (const e of list) {
      const path = parent ? `${parent}.${e.property}` : e.property;
      if (e.constraints) flat[path] = Object.keys(e.constraints).sort();
      walk(e.children ?? [], path);
    }
  };
  walk(errors, '');
  return flat;
}

describe('the DTO decorators', () => {
  it('turn canonical values into numbers and dates', () => {
    const probe = plainToInstance(Probe, { id: '12', when: '2030-01-01T00:00:00Z' });
    expect(probe).toEqual(expect.objectContaining({ id: 12, when: new Date('2030-01-01T00:00:00Z') }));
    expect(
      errorsOf({
        id: '12',
        when: '2030-01-01T00:00:00Z',
        ref: 'hello-12',
        title: 'x',
        authors: [{ id: 1, name: 'A' }],
      }),
    ).toEqual({});
  });

  it.each([
    ['a hex id', { id: '0x1' }, 'id'],
    ['an id with a space', { id: ' 1' }, 'id'],
    ['an id as a JSON number in a path', { id: 1.5 }, 'id'],
    ['an id or slug with a leading zero', { ref: '007' }, 'ref'],
    ['a boolean date', { when: true }, 'when'],
    ['a numeric date', { when: 0 }, 'when'],
    ['a date past 9999', { when: '+010000-01-01T00:00:00.000Z' }, 'when'],
    ['null where the field has no null', { title: null }, 'title'],
    ['null for a nested array', { authors: null }, 'authors'],
    ['an array inside the array', { authors: [[]] }, 'authors'],
    ['a primitive inside the array', { authors: [1] }, 'authors'],
    ['an element missing its fields', { authors: [{}] }, 'authors.0.id'],
    [
      'too many elements',
      {
        authors: [
          { id: 1, name: 'a' },
          { id: 2, name: 'b' },
          { id: 3, name: 'c' },
          { id: 4, name: 'd' },
        ],
      },
      'authors',
    ],
  ])('refuse %s', (_label, plain, path) => {
    expect(Object.keys(errorsOf(plain))).toContain(path);
  });

  it('let null through where the field is nullable (null clears it)', () => {
    expect(errorsOf({ when: null })).toEqual({});
  });
});
