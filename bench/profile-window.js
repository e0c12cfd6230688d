'use strict';
// Preloaded into a server by bench/profile.js (`node --require`): the first SIGUSR2 starts a CPU
// profile (sampled every PROFILE_INTERVAL_US, 1000 µs by default) and counts the statements sent to PostgreSQL, the second stops
// both and writes PROFILE_FILE (the profile) and PROFILE_FILE.json (the count), so what is
// profiled is the measured window only: not start-up, module loading or the warm-up.
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { Client } = require('pg');

const session = new inspector.Session();
session.connect();
let counting = false;
let statements = 0;
const query = Client.prototype.query;
Client.prototype.query = function counted(...args) {
  if (counting) statements++;
  return query.apply(this, args);
};

process.on('SIGUSR2', () => {
  if (!counting) {
    statements = 0;
    counting = true;
    session.post('Profiler.enable', () =>
      session.post('Profiler.setSamplingInterval', { interval: Number(process.env.PROFILE_INTERVAL_US ?? 1000) }, () =>
        session.post('Profiler.start'),
      ),
    );
    return;
  }
  counting = false;
  session.post('Profiler.stop', (err, result) => {
    if (err) throw err;
    writeFileSync(process.env.PROFILE_FILE, JSON.stringify(result.profile));
    writeFileSync(`${process.env.PROFILE_FILE}.json`, JSON.stringify({ statements }));
  });
});
