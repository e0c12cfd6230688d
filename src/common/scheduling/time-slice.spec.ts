import { mapInSlices, TimeSlice } from './time-slice';

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

describe('work in time slices', () => {
  it('lets a waiting macrotask run between steps once a slice is spent, and keeps order and results', async () => {
    let doneWhenServed = -1;
    let done = 0;
    setImmediate(() => (doneWhenServed = done));
    const out = await mapInSlices(
      Array.from({ length: 20 }, (_, i) => i),
      (i) => {
        busy(3);
        done++;
        return i * 2;
      },
      10,
    );
    expect(out).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
    // Served after the first slice (about 4 steps of 3 ms), not after all 20.
    expect(doneWhenServed).toBeGreaterThan(0);
    expect(doneWhenServed).toBeLessThan(20);
  });

  it('does not wait while the slice lasts: cheap steps run in one turn', async () => {
    let served = false;
    setImmediate(() => (served = true));
    const slice = new TimeSlice(10_000);
    for (let i = 0; i < 1000; i++) await slice.next();
    expect(served).toBe(false);
  });
});
