'use strict';
/**
 * Ends a run with one plain line, `Summary: N passed, N failed` (and skipped), which CI and
 * other tools read without knowing jest's own summary format.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `Summary: ${results.numPassedTests} passed, ${results.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`;
    process.stdout.write(`${line}\n`);
  }
}

module.exports = SummaryReporter;
