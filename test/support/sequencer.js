'use strict';
const { statSync } = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;
const { membersOf, runsLong } = require('./groups');

/**
 * Jest's order (last run's failures first, then the longest by the last run's times), except
 * that a file with no recorded time is estimated by its source size, and a group
 * (test/support/groups.js) by the size of the files it requires: jest would otherwise start the
 * groups, tiny files, last, and the run would end on its longest work. A file that says
 * `@runsLong` (test/support/groups.js) goes first.
 */
class SizeAwareSequencer extends Sequencer {
  sort(tests) {
    const size = (path) => {
      const members = membersOf(path);
      return members ? members.reduce((sum, m) => sum + statSync(m).size, 0) : statSync(path).size;
    };
    for (const test of tests) test.duration = this.time(test);
    const estimate = new Map(tests.map((t) => [t, runsLong(t.path) ? Number.MAX_SAFE_INTEGER : size(t.path)]));
    return tests.sort((a, b) => {
      const failedA = this.hasFailed(a);
      const failedB = this.hasFailed(b);
      if (failedA !== failedB) return failedA ? -1 : 1;
      const longA = estimate.get(a) === Number.MAX_SAFE_INTEGER;
      if (longA !== (estimate.get(b) === Number.MAX_SAFE_INTEGER)) return longA ? -1 : 1;
      if ((a.duration != null) !== (b.duration != null)) return a.duration != null ? 1 : -1;
      if (a.duration != null && b.duration != null) return b.duration - a.duration;
      return estimate.get(b) - estimate.get(a);
    });
  }
}

module.exports = SizeAwareSequencer;
