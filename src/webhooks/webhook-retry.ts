/** What a failed attempt leads to: another one after `delaySeconds`, or none (given up). */
export type RetryDecision = { retry: true; delaySeconds: number } | { retry: false };

/**
 * After `failedAttempts` failed attempts of one delivery (1 after the first), when to try
 * again: the schedule's entry for that retry with ±20 % jitter, so endpoints that failed
 * together do not all come back at the same second; none once the schedule is spent.
 */
export function nextAttempt(
  schedule: number[],
  failedAttempts: number,
  random: () => number = Math.random,
): RetryDecision {
  const base = schedule[failedAttempts - 1];
  if (base === undefined) return { retry: false };
  const jitter = 1 + (random() * 2 - 1) * 0.2;
  return { retry: true, delaySeconds: Math.max(0, Math.round(base * jitter * 1000) / 1000) };
}

/** The attempts one delivery gets in all: the first and one per schedule entry. */
export function maxAttempts(schedule: number[]): number {
  return schedule.length + 1;
}
