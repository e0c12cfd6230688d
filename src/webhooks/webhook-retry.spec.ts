import { maxAttempts, nextAttempt } from './webhook-retry';

describe('webhook retries', () => {
  const schedule = [5, 60, 300];

  it('waits each step of the schedule, ±20 %', () => {
    expect(nextAttempt(schedule, 1, () => 0.5)).toEqual({ retry: true, delaySeconds: 5 });
    expect(nextAttempt(schedule, 2, () => 0)).toEqual({ retry: true, delaySeconds: 48 });
    expect(nextAttempt(schedule, 3, () => 1)).toEqual({ retry: true, delaySeconds: 360 });
  });

  it('gives up once the schedule is spent', () => {
    expect(nextAttempt(schedule, 4)).toEqual({ retry: false });
    expect(maxAttempts(schedule)).toBe(4);
  });

  it('the default schedule spreads ten attempts over about a day', () => {
    const defaults = [5, 60, 300, 1800, 3600, 7200, 14400, 28800, 28800];
    const hours = defaults.reduce((a, b) => a + b, 0) / 3600;
    expect(maxAttempts(defaults)).toBe(10);
    expect(hours).toBeGreaterThan(20);
    expect(hours).toBeLessThan(28);
  });
});
