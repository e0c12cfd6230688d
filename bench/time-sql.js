'use strict';
// Preloaded into a server by bench/webhooks.js when BENCH_SQL_TIMING is set (`node --require`):
// times every statement the server sends (from the call to its answer, as the caller waits for
// it) and, at exit, writes the count and total time per statement text to SQL_TIMING_FILE as
// JSON, so the bench can say which statements a delivery costs and how long each takes.
const { writeFileSync } = require('node:fs');
const { Client } = require('pg');

const file = process.env.SQL_TIMING_FILE;
const stats = new Map();
const query = Client.prototype.query;

function record(text, started) {
  const ms = performance.now() - started;
  let s = stats.get(text);
  if (!s) stats.set(text, (s = { text, calls: 0, ms: 0 }));
  s.calls += 1;
  s.ms += ms;
}

Client.prototype.query = function timed(config, values, callback) {
  const text = typeof config === 'string' ? config : config?.text;
  if (!file || !text) return query.call(this, config, values, callback);
  const started = performance.now();
  const cb = typeof values === 'function' ? values : typeof callback === 'function' ? callback : undefined;
  if (cb) {
    const wrapped = (...args) => {
      record(text, started);
      return cb(...args);
    };
    return typeof values === 'function' ? query.call(this, config, wrapped) : query.call(this, config, values, wrapped);
  }
  const result = query.call(this, config, values);
  if (result && typeof result.then === 'function') {
    result.then(
      () => record(text, started),
      () => record(text, started),
    );
  }
  return result;
};

process.on('exit', () => {
  if (file) writeFileSync(file, JSON.stringify([...stats.values()].sort((a, b) => b.ms - a.ms)));
});
