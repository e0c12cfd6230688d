'use strict';
// Preloaded into a server by bench/profile.js (`node --require`): appends the first use of each
// distinct SQL statement, with its parameters, to SQL_CAPTURE_FILE as JSON lines, so the bench
// can run EXPLAIN (ANALYZE, BUFFERS) on exactly what the routes sent.
const { appendFileSync } = require('node:fs');
const { Client } = require('pg');

const file = process.env.SQL_CAPTURE_FILE;
const seen = new Set();
const query = Client.prototype.query;
Client.prototype.query = function capture(config, values, ...rest) {
  const text = typeof config === 'string' ? config : config?.text;
  const params = typeof config === 'object' && config?.values ? config.values : Array.isArray(values) ? values : [];
  if (file && text && !seen.has(text)) {
    seen.add(text);
    appendFileSync(file, `${JSON.stringify({ text, params })}\n`);
  }
  return query.call(this, config, values, ...rest);
};
