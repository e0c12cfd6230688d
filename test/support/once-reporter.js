'use strict';
const { DefaultReporter } = require('@jest/reporters');
const { formatResultsErrors } = require('jest-message-util');

/**
 * jest's default reporter, except that a failure shared by several tests of a file is printed
 * once. When a `beforeAll` throws, jest fails every test after it with the same error, and a
 * file of 40 tests printed it 40 times (one failed set-up made ~1,000 lines): the first test
 * keeps the error, the others say they failed with it.
 */
class OnceReporter extends DefaultReporter {
  constructor(globalConfig, options) {
    super(globalConfig, options);
    this.globalConfigOfRun = globalConfig;
  }

  onTestResult(test, result, aggregated) {
    const seen = new Map();
    let repeated = 0;
    for (const t of result.testResults) {
      if (t.status !== 'failed' || t.failureMessages.length === 0) continue;
      const key = t.failureMessages.join('\n');
      const first = seen.get(key);
      if (first === undefined) {
        seen.set(key, t.fullName);
        continue;
      }
      repeated++;
      t.failureMessages = [`Error: failed with the same error as "${first}" (printed there once)`];
      t.failureDetails = [];
    }
    if (repeated > 0)
      result.failureMessage = formatResultsErrors(
        result.testResults,
        test.context.config,
        this.globalConfigOfRun,
        test.path,
      );
    super.onTestResult(test, result, aggregated);
  }
}

module.exports = OnceReporter;
