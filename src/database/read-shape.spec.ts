import { shapeKey } from './read-shape';

describe('shapeKey', () => {
  it('is the same for the same fields in any order, and JSON of sorted fields', () => {
    expect(shapeKey({ limit: 20, cursor: false, status: true })).toBe('{"cursor":false,"limit":20,"status":true}');
    expect(shapeKey({ status: true, cursor: false, limit: 20 })).toBe(
      shapeKey({ limit: 20, cursor: false, status: true }),
    );
    expect(shapeKey({})).toBe('{}');
    expect(shapeKey(Object.assign(Object.create(null) as object, { by: 'id' }))).toBe('{"by":"id"}');
  });

  it('tells apart shapes that differ in one field, in a value or in its type', () => {
    const keys = [
      {},
      { status: true },
      { status: false },
      { status: null },
      { status: 'true' },
      { status: 1 },
      { limit: 20 },
      { limit: 21 },
      { limit: '20' },
      { inStock: true, recurring: null },
      { inStock: null, recurring: true },
      { 'a,"b":1': true },
      { a: true, b: 1 },
    ].map(shapeKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it.each([
    ['undefined', { status: undefined }, /field "status" is undefined/],
    ['NaN', { limit: NaN }, /field "limit" is NaN/],
    ['Infinity', { limit: Infinity }, /field "limit" is Infinity/],
    ['a Date', { from: new Date(0) }, /field "from" is an object \(Date\)/],
    ['an array', { tags: ['a'] }, /field "tags" is an array/],
    ['an object', { filter: { a: 1 } }, /field "filter" is an object \(Object\)/],
    ['a function', { build: () => 1 }, /field "build" is a function/],
    ['a bigint', { id: 1n }, /field "id" is a bigint/],
  ])('rejects %s, naming the field', (_, shape, message) => {
    expect(() => shapeKey(shape)).toThrow(message);
    expect(() => shapeKey(shape)).toThrow(/only JSON scalars/);
  });

  it('rejects what is not a plain object', () => {
    class Query {
      status = true;
    }
    expect(() => shapeKey(new Query())).toThrow(/plain object of JSON scalars, not an object \(Query\)/);
    expect(() => shapeKey([true])).toThrow(/not an array/);
    expect(() => shapeKey('one' as unknown as object)).toThrow(/not a string/);
    expect(() => shapeKey(null as unknown as object)).toThrow(/not null/);
    expect(() => shapeKey({ [Symbol('x')]: true })).toThrow(/string keys only/);
  });
});
