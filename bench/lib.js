'use strict';
// Shared helpers for the bench scripts: start the real server, wait for it, run autocannon,
// and write a section of docs/benchmarks.md between <!-- name:start --> and <!-- name:end -->.
const { execFileSync, spawn } = require('node:child_process');
const os = require('node:os');
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const autocannon = require('autocannon');

const ROOT = join(__dirname, '..');

/**
 * On a multi-core machine the load generator and the servers get separate cores (taskset), so
 * they do not steal each other's time and two runs can be compared. Without taskset, or on one
 * core, everything shares.
 */
const PIN = (() => {
  try {
    if (os.cpus().length < 2) return null;
    execFileSync('taskset', ['-cp', '0', String(process.pid)], { stdio: 'ignore' });
    return { server: ['taskset', ['-c', '1']] };
  } catch {
    return null;
  }
})();

/** Every core of this machine, as taskset writes them (`0-1`). */
const ALL_CORES = `0-${os.cpus().length - 1}`;

/**
 * Puts an embedded PostgreSQL in `dir` (its postmaster and every process it has started: backends,
 * background writers, I/O workers) on `cores` (`ALL_CORES`, or `PIN.server[1][1]` beside a pinned
 * server); backends started later fork from the postmaster and inherit them. A database started by
 * a bench inherits the bench's own core (core 0, the load generator's), so every bench says where
 * its database runs. Answers false when pinning is not available here.
 */
function pinDatabase(dir, cores) {
  if (!PIN) return false;
  const pid = String(postmasterOf(dir));
  const pids = execFileSync('ps', ['-o', 'pid=', '--ppid', pid]).toString().split(/\s+/).filter(Boolean);
  for (const p of [pid, ...pids]) execFileSync('taskset', ['-a', '-cp', cores, p], { stdio: 'ignore' });
  return true;
}

/** Spawns `node args`, on the server core when `pin` is asked for and pinning works. */
function spawnNode(args, options, pin = true) {
  if (!PIN) return spawn(process.execPath, args, options);
  // Children inherit this process's core; an unpinned server is given all of them back.
  const cores = pin ? PIN.server[1] : ['-c', ALL_CORES];
  return spawn('taskset', [...cores, process.execPath, ...args], options);
}

/** utime + stime (+ the reaped children's, with `children`) of a process, in USER_HZ ticks; 0 once it is gone. */
function procTicks(pid, children = false) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ').map(Number);
    return f[11] + f[12] + (children ? f[13] + f[14] : 0);
  } catch {
    return 0;
  }
}

/** The postmaster of the embedded PostgreSQL whose data directory is `dir`. */
function postmasterOf(dir) {
  return Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0].trim());
}

/**
 * CPU time so far (from /proc) of each core, of the server's processes and of PostgreSQL: its
 * postmaster with the backends it has reaped, and the live ones. Two samples give `cpuUse`.
 */
function cpuSample(serverPids, postmasterPid) {
  const cores = readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .filter((l) => /^cpu\d/.test(l))
    .map((l) => {
      // user nice system idle iowait irq softirq steal (guest time is already in user)
      const f = l.trim().split(/\s+/).slice(1, 9).map(Number);
      const total = f.reduce((a, b) => a + b, 0);
      return { busy: total - f[3] - f[4] - f[7], steal: f[7], total };
    });
  let server = 0;
  for (const pid of [].concat(serverPids)) server += procTicks(pid);
  let pg = 0;
  if (postmasterPid) {
    pg = procTicks(postmasterPid, true);
    const kids = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmasterPid)]).toString();
    for (const pid of kids.split(/\s+/).filter(Boolean)) pg += procTicks(pid);
  }
  return { cores, server, pg, at: performance.now() };
}

/**
 * Between two `cpuSample`s: each core's busy share and the share the hypervisor took from it
 * (steal: the machine runs slower without any process using more CPU), and the CPU seconds of
 * the server and of PostgreSQL.
 */
function cpuUse(a, b) {
  const share = (i, key) => (b.cores[i][key] - a.cores[i][key]) / (b.cores[i].total - a.cores[i].total || 1);
  return {
    cores: b.cores.map((_, i) => share(i, 'busy')),
    steal: b.cores.map((_, i) => share(i, 'steal')),
    /** CPU seconds (USER_HZ = 100). */
    server: (b.server - a.server) / 100,
    pg: (b.pg - a.pg) / 100,
    seconds: (b.at - a.at) / 1000,
  };
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

async function waitFor(url, timeoutMs = 60000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** The node flags `npm start` runs the server with (package.json `start:prod`), so the bench runs it the same way. */
const SERVER_NODE_FLAGS = (() => {
  const script = require(join(ROOT, 'package.json')).scripts['start:prod'] ?? '';
  const m = /\bnode\s+(.*?)\s*dist\/src\/main\.js/.exec(script);
  return m ? m[1].split(/\s+/).filter(Boolean) : [];
})();

/**
 * The per-key, per-session and per-account budgets (docs/foundation.md, "Fair share"), off: a
 * bench's load generator is one key of one account at thousands of requests a second, and the
 * figures measure speed, not the limiter. Every server a bench starts gets these unless its own
 * env says otherwise; the anonymous limit (RATE_LIMIT_PUBLIC_MAX) each bench sets itself.
 */
const LIMITS_OFF = {
  RATE_LIMIT_KEY_MAX: '0',
  RATE_LIMIT_SESSION_MAX: '0',
  ...Object.fromEntries(
    ['RENDER', 'OUTBOUND', 'IMPORT', 'UPLOAD'].flatMap((c) => [
      [`RATE_LIMIT_${c}_MAX`, '0'],
      [`RATE_LIMIT_${c}_CONCURRENCY`, '0'],
    ]),
  ),
  NEWSLETTER_ACCOUNT_IMPORTS_MAX: '0',
  NEWSLETTER_ACCOUNT_BACKLOG_MAX: '0',
};

/**
 * Starts `node dist/src/main.js` with env (and the flags of `npm start`); resolves when /health/ready answers 200. `pin` puts
 * it on its own core (for request-rate comparisons; not for work that wants every core). `root`: another
 * checkout's build to start instead (`npm run bench -- --quick --before <dir>`).
 */
async function startServer(env, { quiet = true, pin = true, nodeArgs = [], root = ROOT } = {}) {
  if (!existsSync(join(root, 'dist/src/main.js'))) throw new Error(`Run \`npm run build\` first (in ${root})`);
  const started = Date.now();
  const child = spawnNode(
    // BENCH_SERVER_NODE_ARGS adds flags to every server a bench starts (e.g. `--cpu-prof
    // --cpu-prof-dir=/tmp/profiles`, which NODE_OPTIONS refuses): how the figures are profiled.
    [
      ...SERVER_NODE_FLAGS,
      ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
      ...nodeArgs,
      'dist/src/main.js',
    ],
    {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'warn', ...LIMITS_OFF, ...env },
      stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit',
    },
    pin,
  );
  const exited = new Promise((resolve) => child.on('exit', resolve));
  await Promise.race([
    waitFor(`http://127.0.0.1:${env.PORT}/health/ready`),
    exited.then((code) => {
      throw new Error(`server exited with ${code}`);
    }),
  ]);
  return {
    child,
    readyMs: Date.now() - started,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Requests per second and latency of one autocannon run. */
async function load(opts) {
  const result = await autocannon({ connections: 50, duration: 10, ...opts });
  const non2xx = result.non2xx + result.errors;
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p97_5: result.latency.p97_5,
    p99: result.latency.p99,
    errors: non2xx,
  };
}

/**
 * Writes a section of a doc (docs/benchmarks.md unless told) between <!-- name:start --> and
 * <!-- name:end -->, appending it when the doc has none; a missing doc starts with `title`.
 */
function writeSection(
  name,
  markdown,
  file = 'docs/benchmarks.md',
  title = '# Benchmarks\n\nMeasured by the scripts in `bench/` on the project machine (2 cores); figures are recorded, never asserted in tests.\n',
) {
  const path = join(ROOT, file);
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  let text = existsSync(path) ? readFileSync(path, 'utf8') : title;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  text = i >= 0 && j > i ? text.slice(0, i) + block + text.slice(j + end.length) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(path, text);
}

/**
 * The database a bench run uses: a throwaway database beside DATABASE_URL's when it is set
 * (dropped by `drop()`), else an embedded PostgreSQL in `dataDir` on `embeddedPort`.
 */
async function benchDatabase(tag, dataDir, embeddedPort) {
  const admin = process.env.DATABASE_URL;
  if (!admin) {
    return {
      env: { DATABASE_URL: '', EMBEDDED_PG_DIR: join(dataDir, 'pg'), EMBEDDED_PG_PORT: String(embeddedPort) },
      drop: async () => undefined,
      label: 'embedded PostgreSQL',
    };
  }
  const { Client } = require('pg');
  const name = `sb_bench_${tag}_${Date.now().toString(36)}`;
  const run = async (sql) => {
    const c = new Client({ connectionString: admin });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await run(`CREATE DATABASE "${name}"`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    url: url.toString(),
    label: 'PostgreSQL at DATABASE_URL (fresh database)',
    drop: () => run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

/**
 * A headline target of a scenario bench, for the summary of `npm run bench` (bench/all.js), which
 * runs it with BENCH_SUMMARY_FILE set; run alone, a bench skips this.
 */
function summarize(name, met, value) {
  const file = process.env.BENCH_SUMMARY_FILE;
  if (file) require('node:fs').appendFileSync(file, `${JSON.stringify({ name, met, value })}\n`);
}

/**
 * A JSON client of a bench's server: `api(method, path, body)` sends the key's headers, answers
 * the parsed body (null for a 204) and throws on any non-2xx answer.
 */
function apiClient(base, headers) {
  return async function api(method, path, body) {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = res.status === 204 ? null : await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
}

/**
 * The embedded PostgreSQL of a bench run in `dataDir` (thrown away after), on every core, and the
 * settings of a server on it: the bootstrap site `demo` with `key`, on `port`, plus `extra`.
 */
async function benchServerDb(dataDir, pgPort, { key, port, extra = {} }) {
  const { startEmbeddedPostgres } = require(join(ROOT, 'dist/src/database/embedded'));
  const db = await startEmbeddedPostgres({
    dir: join(dataDir, 'pg'),
    port: pgPort,
    database: 'sitebase',
    persistent: false,
  });
  // Started from this process, it would share the load generator's core.
  pinDatabase(join(dataDir, 'pg'), ALL_CORES);
  const env = {
    DATABASE_URL: db.url,
    BOOTSTRAP_API_KEY: key,
    BOOTSTRAP_SITE: 'demo',
    LOG_LEVEL: 'warn',
    PORT: String(port),
    ...extra,
  };
  return { db, env };
}

/** The rows of one statement, on a connection of its own. */
async function query(url, text, params = []) {
  const { Client } = require('pg');
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, params)).rows;
  } finally {
    await c.end();
  }
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

module.exports = {
  ROOT,
  LIMITS_OFF,
  PIN,
  ALL_CORES,
  pinDatabase,
  procTicks,
  postmasterOf,
  cpuSample,
  cpuUse,
  sleep,
  waitFor,
  spawnNode,
  startServer,
  load,
  writeSection,
  median,
  benchDatabase,
  summarize,
  apiClient,
  query,
  benchServerDb,
};
