'use strict';
// The load generator of bench/run.js: wrk (1 thread, 64 connections) on the load core, with its own
// CPU use measured so a run can tell when the generator, not the server, was the limit. Falls back
// to autocannon (in-process, and much heavier per request) when wrk is not installed.
const { execFileSync, spawn } = require('node:child_process');
const autocannon = require('autocannon');
const { PIN, procTicks } = require('./lib');

const HAS_WRK = (() => {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    return err.status === 1; // wrk --version prints its banner and exits 1
  }
})();

function toMs(text) {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!m) return NaN;
  const v = Number(m[1]);
  return m[2] === 'us' ? v / 1000 : m[2] === 'ms' ? v : m[2] === 's' ? v * 1000 : v * 60000;
}

function parseWrk(out) {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const pct = (p) => toMs(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(out)?.[1] ?? '');
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = sock ? sock.slice(1).reduce((n, x) => n + Number(x), 0) : 0;
  const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
  return { rps: Math.round(rps), p50: pct(50), p99: pct(99), non2xx, socketErrors, requests };
}

/**
 * One measured run: `seconds` of load at `connections`, after `warmup` seconds of the same load.
 * Returns requests/s, p50/p99 in ms, non-2xx and socket errors, and the generator's CPU share.
 */
async function measure(url, { seconds = 12, warmup = 10, connections = 64, headers = {} } = {}) {
  if (warmup > 0) await run(url, warmup, connections, headers);
  return run(url, seconds, connections, headers);
}

async function run(url, seconds, connections, headers) {
  if (!HAS_WRK) {
    const started = process.cpuUsage();
    const r = await autocannon({ url, connections, duration: seconds, headers });
    const used = process.cpuUsage(started);
    return {
      rps: Math.round(r.requests.average),
      p50: r.latency.p50,
      p99: r.latency.p99,
      non2xx: r.non2xx,
      socketErrors: r.errors + r.timeouts,
      requests: r.requests.total,
      loadCpu: (used.user + used.system) / 1e6 / seconds,
    };
  }
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '--timeout', '5s'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  args.push(url);
  // This process is pinned to the load core already; wrk inherits it.
  const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  // CPU seconds of wrk (/proc); a reading once it has exited (0 ticks) is not taken.
  const wrkCpu = () => procTicks(child.pid) / 100 || NaN;
  let before = NaN;
  setTimeout(() => (before = wrkCpu()), 200).unref();
  let after = NaN;
  const sampler = setInterval(() => {
    const now = wrkCpu();
    if (!Number.isNaN(now)) after = now;
  }, 250);
  const code = await new Promise((resolve) => child.on('exit', resolve));
  clearInterval(sampler);
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${out}`);
  const r = parseWrk(out);
  return { ...r, loadCpu: (after - before) / (seconds - 0.45) };
}

module.exports = { measure, LOAD_GENERATOR: HAS_WRK ? 'wrk 1 thread' : 'autocannon (wrk not installed)', PIN };
