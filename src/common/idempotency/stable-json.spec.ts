import { stableJson } from './stable-json';

describe('stableJson', () => {
  it('ignores key order at every depth', () => {
    expect(stableJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
      stableJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
  });

  it('tells different values apart', () => {
    expect(stableJson({ a: 1 })).not.toBe(stableJson({ a: '1' }));
    expect(stableJson([1, 2])).not.toBe(stableJson([2, 1]));
    expect(stableJson(undefined)).toBe('null');
  });
});
