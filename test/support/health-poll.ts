import { scaled } from './time-scale';

/**
 * Runs `attack` while the app at `base` answers `GET /health` in a loop (docs/security.md, "Work on
 * tenant input"): answers the attack's result, logs the worst latency seen, and fails when a poll
 * did not answer within the hang check (a scaled second: the work held the shared event loop).
 */
export async function whileHealthPolled<T>(base: string, name: string, attack: () => Promise<T>): Promise<T> {
  const latencies: number[] = [];
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const t0 = performance.now();
      const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(scaled(20_000)) });
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const t0 = performance.now();
  try {
    return await attack();
  } finally {
    polling = false;
    await poll;
    const worst = Math.max(...latencies);
    console.log(
      `${name}: done in ${(performance.now() - t0).toFixed(0)} ms; /health answered ${latencies.length} times, ` +
        `worst ${worst.toFixed(0)} ms`,
    );
    expect(latencies.length).toBeGreaterThan(0);
    // A hang check: before the bounds, row 1's flood held the event loop 8.8 s (32 s) on an idle machine.
    expect(worst).toBeLessThan(scaled(1000));
  }
}
