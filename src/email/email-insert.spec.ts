import { byWeight } from './email.repository';

describe('byWeight: a batch of messages split by the size of their copies', () => {
  const len = (s: string) => s.length;

  it('keeps order and every item, each run within the bound', () => {
    const items = ['aaaa', 'bb', 'cccccc', 'd', 'ee', 'ffff', 'g'];
    const runs = byWeight(items, len, 6);
    expect(runs.flat()).toEqual(items);
    expect(runs).toEqual([['aaaa', 'bb'], ['cccccc'], ['d', 'ee'], ['ffff', 'g']]);
    for (const run of runs) expect(run.map(len).reduce((a, b) => a + b)).toBeLessThanOrEqual(6);
  });

  it('puts an item heavier than the bound in a run of its own, and small batches in one run', () => {
    expect(byWeight(['x', 'yyyyyyyyyy', 'z'], len, 3)).toEqual([['x'], ['yyyyyyyyyy'], ['z']]);
    expect(byWeight(['a', 'b', 'c'], len, 100)).toEqual([['a', 'b', 'c']]);
    expect(byWeight([], len, 100)).toEqual([]);
  });
});
