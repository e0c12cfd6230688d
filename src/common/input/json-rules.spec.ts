import { boundedJsonObjectError } from './json-rules';

describe('bounded JSON objects', () => {
  const limits = { maxDepth: 3, maxBytes: 64 };

  it('accepts objects within the depth and size', () => {
    expect(boundedJsonObjectError({}, limits)).toBeNull();
    expect(boundedJsonObjectError({ a: 1, b: 'x', c: [1, 2] }, limits)).toBeNull();
    expect(boundedJsonObjectError({ a: { b: [1] } }, limits)).toBeNull();
    expect(boundedJsonObjectError({ a: { b: {} } }, limits)).toBeNull();
    expect(boundedJsonObjectError({ a: 'x'.repeat(56) }, limits)).toBeNull(); // 64 bytes
  });

  it.each([
    ['null', null, 'must be a JSON object'],
    ['an array', [], 'must be a JSON object'],
    ['a string', 'x', 'must be a JSON object'],
    ['four levels', { a: { b: { c: {} } } }, 'must be nested at most 3 levels deep'],
    ['four levels through arrays', { a: [[[1]]] }, 'must be nested at most 3 levels deep'],
    ['65 bytes', { a: 'x'.repeat(57) }, 'must be at most 64 bytes as JSON'],
    ['multi-byte characters counted as bytes', { a: 'é'.repeat(29) }, 'must be at most 64 bytes as JSON'],
  ])('refuses %s', (_label, value, message) => {
    expect(boundedJsonObjectError(value, limits)).toBe(message);
  });

  it('stops counting depth at the limit (a very deep value costs no more)', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(boundedJsonObjectError({ a: deep }, limits)).toBe('must be nested at most 3 levels deep');
  });
});
