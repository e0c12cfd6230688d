/**
 * Every time limit of the suite is multiplied by one factor (docs/testing.md, "Time limits"):
 * `TEST_TIME_SCALE`, which jest.config.js sets from the machine's load when the run starts
 * (at least 3, up to 6 on a machine another job keeps busy) unless it is given. A limit catches
 * a hang; it never asserts a speed, so a loaded machine only makes the suite slower, not red.
 */
export const TIME_SCALE = Math.max(1, Number(process.env.TEST_TIME_SCALE ?? 1) || 1);

/** A time limit in ms, scaled. */
export function scaled(ms: number): number {
  return Math.round(ms * TIME_SCALE);
}

/**
 * A limit proportional to the work a test does: `units` of work at `msPerUnit` each on an idle
 * machine (never under `floorMs`), scaled.
 */
export function limitFor(units: number, msPerUnit: number, floorMs = 30_000): number {
  return scaled(Math.max(floorMs, units * msPerUnit));
}
