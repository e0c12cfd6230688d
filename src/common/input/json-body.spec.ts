import { FORBIDDEN_KEYS, forbiddenKeyErrors, jsonDepthExceeds, unstorableTextErrors } from './json-body';

describe('jsonDepthExceeds', () => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

  it('counts objects and arrays, the top level being 1', () => {
    expect(jsonDepthExceeds('{}', 1)).toBe(false);
    expect(jsonDepthExceeds('{"a":{}}', 1)).toBe(true);
    expect(jsonDepthExceeds(nested(32), 32)).toBe(false);
    expect(jsonDepthExceeds(nested(33), 32)).toBe(true);
    expect(jsonDepthExceeds(`{"a":[1,{"b":2}],"c":[[3]]}`, 3)).toBe(false);
    expect(jsonDepthExceeds(`{"a":[1,{"b":[2]}]}`, 3)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonDepthExceeds(JSON.stringify({ a: '[[[[{{{{' }), 1)).toBe(false);
    expect(jsonDepthExceeds(JSON.stringify({ a: 'say \\"[[[[\\" and "{{"' }), 1)).toBe(false);
    expect(jsonDepthExceeds(`{"a\\\\":[[]]}`, 2)).toBe(true);
  });

  it('stops early on a very deep body', () => {
    const started = Date.now();
    expect(jsonDepthExceeds(nested(500_000), 32)).toBe(true);
    expect(Date.now() - started).toBeLessThan(100);
  });
});

describe('forbiddenKeyErrors', () => {
  it('covers Object.prototype members and prototype', () => {
    for (const key of ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty'])
      expect(FORBIDDEN_KEYS.has(key)).toBe(true);
    expect(FORBIDDEN_KEYS.has('name')).toBe(false);
  });

  it('names every forbidden key with its path, at any depth', () => {
    const body = JSON.parse(
      '{"__proto__":{"x":1},"title":"t","customFields":{"a":{"constructor":{"prototype":1}}},"authors":[{"id":1},{"toString":2}]}',
    );
    expect(forbiddenKeyErrors(body)).toEqual([
      { path: '__proto__', message: 'is not allowed' },
      { path: 'customFields.a.constructor', message: 'is not allowed' },
      { path: 'authors.1.toString', message: 'is not allowed' },
    ]);
  });

  it('finds nothing in an ordinary body, and stops at the limit', () => {
    expect(forbiddenKeyErrors({ title: 'x', tags: ['constructor'], customFields: { proto: 1 } })).toEqual([]);
    const many = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, JSON.parse('{"__proto__":1}')]));
    expect(forbiddenKeyErrors(many, 3)).toHaveLength(3);
  });
});

describe('unstorableTextErrors', () => {
  it('names strings and keys holding NUL or a lone surrogate, at any depth', () => {
    const body = JSON.parse(
      '{"title":"a\\u0000b","tags":["ok","\\ud800"],"customFields":{"x\\udc00":1,"y":{"z":"\\udfff\\ud800"}}}',
    );
    const message = 'must not contain NUL or unpaired surrogate characters';
    expect(unstorableTextErrors(body)).toEqual([
      { path: 'title', message },
      { path: 'tags.1', message },
      { path: 'customFields.x\udc00', message },
      { path: 'customFields.y.z', message },
    ]);
  });

  it('takes paired surrogates (emoji) and ordinary text', () => {
    expect(unstorableTextErrors({ title: 'ok \ud83d\ude00', n: 1, b: null, a: [{ k: 'é' }] })).toEqual([]);
  });
});
