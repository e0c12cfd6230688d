import { Semaphore, thumbnailWidths } from './images';

describe('thumbnail widths', () => {
  it('keeps configured widths narrower than the image, narrowest first, without duplicates', () => {
    expect(thumbnailWidths([1200, 150, 600], 4000)).toEqual([150, 600, 1200]);
    expect(thumbnailWidths([150, 600, 1200], 600)).toEqual([150]);
    expect(thumbnailWidths([150, 150], 100)).toEqual([]);
    expect(thumbnailWidths([], 1000)).toEqual([]);
  });
});

describe('Semaphore', () => {
  it('never runs more than its size at once, and runs everything', async () => {
    const gate = new Semaphore(2);
    let active = 0;
    let peak = 0;
    const done: number[] = [];
    await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        gate.run(async () => {
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, 5 + (i % 3)));
          active--;
          done.push(i);
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(done.sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('frees the slot when a task fails', async () => {
    const gate = new Semaphore(1);
    await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await gate.run(() => Promise.resolve('next'))).toBe('next');
  });
});
