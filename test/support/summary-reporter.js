'use strict';
const { createHash } = require('node:crypto');
const { readdirSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

/**
 * Ends a run with one plain line, `Summary: N passed, N failed` (and skipped), which CI and
 * other tools read without knowing jest's own summary format, and a line with the number of
 * answers the response check held against the document (test/support/response-check.ts).
 */
class SummaryReporter {
  constructor(globalConfig) {
    // The folder response-check-store.ts writes each file's counts to (one per checkout).
    const hash = createHash('sha1').update(resolve(globalConfig.rootDir)).digest('hex').slice(0, 10);
    this.counts = join(tmpdir(), `sitebase-response-check-${hash}`);
  }

  onRunStart() {
    rmSync(this.counts, { recursive: true, force: true });
  }

  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `Summary: ${results.numPassedTests} passed, ${results.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`;
    process.stdout.write(`${line}\n`);
    const checked = this.readCounts();
    if (checked) process.stdout.write(`${checked}\n`);
  }

  readCounts() {
    let files;
    try {
      files = readdirSync(this.counts);
    } catch {
      return undefined;
    }
    let validated = 0;
    const skipped = {};
    const stripe = { valid: 0, refused: 0 };
    for (const file of files) {
      const counts = JSON.parse(readFileSync(join(this.counts, file), 'utf8'));
      validated += counts.validated;
      for (const [reason, n] of Object.entries(counts.skipped)) skipped[reason] = (skipped[reason] ?? 0) + n;
      stripe.valid += counts.stripe?.valid ?? 0;
      stripe.refused += counts.stripe?.refused ?? 0;
    }
    const stripeLine =
      stripe.valid + stripe.refused > 0
        ? `\nStripe stand-in: ${stripe.valid} requests accepted by Stripe's OpenAPI spec, ${stripe.refused} refused (the stand-in's own tests send refused ones on purpose; every adapter test asserts none)`
        : '';
    const reasons = Object.entries(skipped).map(([reason, n]) => `${n} ${reason}`);
    return `Response check: ${validated} answers validated against the document${reasons.length ? `; skipped: ${reasons.join('; ')}` : ''}${stripeLine}`;
  }
}

module.exports = SummaryReporter;
