import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * What the response check (response-check.ts) found in this test file: the answers that break
 * the document, each with the test that caused it, and how many answers it checked or skipped
 * (by reason). Kept apart from the checker so the setup file every spec loads stays light.
 */
const violations: string[] = [];
let validated = 0;
const skipped = new Map<string, number>();
/** Requests the Stripe stand-in checked against Stripe's own OpenAPI spec (test/support/stripe). */
const stripe = { valid: 0, refused: 0 };

export function recordViolation(message: string): void {
  violations.push(message);
}

export function countValidated(): void {
  validated += 1;
}

export function countSkipped(reason: string): void {
  skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
}

export function countStripeRequest(valid: boolean): void {
  if (valid) stripe.valid += 1;
  else stripe.refused += 1;
}

/** How many answers this file has had checked so far. */
export function validatedSoFar(): number {
  return validated;
}

/** The violations recorded since the last call (a test that provokes some on purpose takes them). */
export function takeViolations(): string[] {
  return violations.splice(0, violations.length);
}

/** Where each file leaves its counts; the summary reporter adds them up (one folder per checkout). */
export function countsFolder(rootDir: string): string {
  return join(
    tmpdir(),
    `sitebase-response-check-${createHash('sha1').update(resolve(rootDir)).digest('hex').slice(0, 10)}`,
  );
}

/** Writes this file's counts beside the other files' (nothing when it checked nothing). */
export function writeCounts(rootDir: string): void {
  if (validated === 0 && skipped.size === 0 && stripe.valid + stripe.refused === 0) return;
  const folder = countsFolder(rootDir);
  mkdirSync(folder, { recursive: true });
  const name = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`;
  writeFileSync(join(folder, name), JSON.stringify({ validated, skipped: Object.fromEntries(skipped), stripe }));
}
