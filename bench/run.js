'use strict';
// The hot-path benchmark (`npm run bench`): one run, every target in it, ratios against baselines
// measured in the same run. The servers and their PostgreSQL share core 1; wrk (1 thread, 64
// connections, 10 s warm-up, 12 s measured) runs on core 0 and its own CPU use is reported.
// Writes the "hotpath" section of docs/benchmarks.md. See docs/performance.md for the method.
const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
const { cpus, tmpdir } = require('node:os');
const { join } = require('node:path');
const { ROOT, PIN, spawnNode, startServer, waitFor, writeSection, median } = require('./lib');
const { measure, LOAD_GENERATOR } = require('./wrk');

const { KEY, ITEMS, startDatabase, seed, statements } = require('./fixture');
const PORTS = { sitebase: 3930, nocache: 3931, limited: 3932, hello: 3933, naive: 3934, floor: 3935 };
const HEALTH_ROUNDS = 3;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);

function row(name, r, extra = {}) {
  const valid = r.non2xx === 0 && r.socketErrors === 0;
  return { name, ...r, valid, ...extra };
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sitebase-hotpath-'));
  chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as its own user and must reach the folder
  const children = [];
  let db;
  try {
    db = await startDatabase(join(dataDir, 'pg'));
    const base = { DATABASE_URL: db.url, BOOTSTRAP_API_KEY: KEY, BOOTSTRAP_SITE: 'demo', LOG_LEVEL: 'warn' };
    // First start migrates and bootstraps; the start-to-ready figure is of the starts after it.
    await (await startServer({ ...base, PORT: String(PORTS.sitebase) })).stop();
    const readies = [];
    for (let i = 0; i < 3; i++) {
      const s = await startServer({ ...base, PORT: String(PORTS.sitebase) });
      readies.push(s.readyMs);
      await s.stop();
    }
    const siteId = await seed(db.url);

    // The throughput rows must not be stopped by the anonymous per-address limit (one load
    // generator is one address): a limit no run reaches, so counting still costs what it costs.
    const unlimited = { RATE_LIMIT_PUBLIC_MAX: '1000000000' };
    const servers = {
      sitebase: await startServer({ ...base, ...unlimited, PORT: String(PORTS.sitebase) }),
      nocache: await startServer({ ...base, ...unlimited, PORT: String(PORTS.nocache), CONTENT_CACHE_TTL_MS: '0' }),
      limited: await startServer({ ...base, PORT: String(PORTS.limited), JOBS_ENABLED: 'false' }),
    };
    Object.values(servers).forEach((s) => children.push(s));
    const baseline = (file, port) => {
      const child = spawnNode([join(__dirname, file)], { cwd: ROOT, env: { ...process.env, PORT: String(port), DATABASE_URL: db.url, SITE_ID: String(siteId) }, stdio: ['ignore', 'ignore', 'inherit'] });
      children.push({ stop: async () => child.kill('SIGTERM') });
    };
    baseline('hello.js', PORTS.hello);
    baseline('naive.js', PORTS.naive);
    baseline('floor.js', PORTS.floor);
    await waitFor(`http://127.0.0.1:${PORTS.hello}/health`);
    await waitFor(`http://127.0.0.1:${PORTS.naive}/items`);
    await waitFor(`http://127.0.0.1:${PORTS.floor}/`);

    const opts = { seconds: SECONDS, warmup: WARMUP };
    const url = (port, path) => `http://127.0.0.1:${port}${path}`;
    const list = '/api/v2/sites/demo/content';
    const keyed = { headers: { 'x-api-key': KEY } };
    const log = (r) => console.log(`${r.name.padEnd(48)} ${String(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  non-2xx ${r.non2xx}  load core ${(r.loadCpu * 100).toFixed(0)} %`);

    const health = [];
    for (let i = 0; i < HEALTH_ROUNDS; i++) {
      const hello = row('bare NestJS hello-world', await measure(url(PORTS.hello, '/health'), opts));
      const own = row('Sitebase GET /health', await measure(url(PORTS.sitebase, '/health'), opts));
      log(hello);
      log(own);
      health.push({ hello, own, ratio: own.rps / hello.rps });
    }
    const mid = health.map((h) => h.ratio).indexOf(median(health.map((h) => h.ratio)));
    const hello = health[mid].hello;
    const rows = [];
    const add = async (name, target, options = {}) => {
      const r = row(name, await measure(target, { ...opts, ...options }));
      log(r);
      rows.push(r);
      return r;
    };
    const floor = await add('bare Node http + pg, one prepared SELECT', url(PORTS.floor, '/'));
    const naive = await add('naive NestJS + TypeORM handler (find, take 20)', url(PORTS.naive, '/items'));
    const cached = await add('content list, anonymous, read cache on', url(PORTS.sitebase, `${list}?limit=20`));
    const uncached = await add('content list, anonymous, cache off', url(PORTS.nocache, `${list}?limit=20`));
    const withKey = await add('content list with an API key', url(PORTS.nocache, `${list}?limit=20`), keyed);
    const bySlug = await add('get by slug, anonymous, read cache on', url(PORTS.sitebase, `${list}/post-500`));
    const bySlugNoCache = await add('get by slug, anonymous, cache off', url(PORTS.nocache, `${list}/post-500`));
    const v1 = await add('GET /v1/demo/pages/20/0 with a key', url(PORTS.nocache, '/v1/demo/pages/20/0'), keyed);

    // A blocked anonymous client (default limit): its 429s against /health's rate, and what the
    // flood cost the database (transactions and row writes, from pg_stat_database).
    const before = await statements(db.url);
    const flood = await measure(url(PORTS.limited, `${list}?limit=20`), { ...opts, warmup: 2 });
    const after = await statements(db.url);
    const blocked = { name: 'anonymous flood, blocked: 429s', ...flood, valid: flood.socketErrors === 0 && flood.non2xx >= flood.requests - 200 };
    log(blocked);

    const pct = (x) => `${x.toFixed(2)}`;
    const verdict = (ok) => (ok ? 'met' : '**missed**');
    const t = (r, ref, goal) => `${pct(r.rps / ref.rps)} (target ≥ ${goal}: ${verdict(r.valid && r.rps / ref.rps >= goal)})`;
    const line = (r, ratio) => `| ${r.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.non2xx + r.socketErrors} | ${(r.loadCpu * 100).toFixed(0)} % | ${ratio} |`;
    const p99ok = [...rows, ...health.flatMap((h) => [h.own])].every((r) => r.p99 <= 50);
    const md = `## Hot path (issue 7)

Run: ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} cores; ${PIN ? `servers **and their PostgreSQL** pinned to core 1 (${db.pinned ? 'postmaster and backends' : 'servers only'}), the load generator to core 0` : 'not pinned (taskset missing or one core): figures are indicative only'}. Load: ${LOAD_GENERATOR}, 64 connections, ${WARMUP} s warm-up then ${SECONDS} s measured per row. Data: ${ITEMS.toLocaleString('en')} published items of about 1 KB in site \`demo\` (embedded PostgreSQL started by the bench). \`npm run bench\`.

The Sitebase throughput rows run with \`RATE_LIMIT_PUBLIC_MAX=1000000000\` (one load generator is one address; the limiter still counts every hit); the flood row runs a server with the default limit (120 a minute). "cache off" rows run a server with \`CONTENT_CACHE_TTL_MS=0\`: every request reads PostgreSQL. "load core" is wrk's own CPU share of its core: well under 100 % means the server, not the generator, was the limit. A row with any non-2xx answer or socket error is invalid.

**GET /health against the bare NestJS hello-world**, ${HEALTH_ROUNDS} paired rounds: ${health.map((h) => `${h.own.rps} / ${h.hello.rps} = ${pct(h.ratio)}`).join('; ')}. Spread ${pct(Math.min(...health.map((h) => h.ratio)))}–${pct(Math.max(...health.map((h) => h.ratio)))} (target ≥ 0.8 in every round: ${verdict(health.every((h) => h.ratio >= 0.8 && h.own.valid))}).

| row | req/s | p50 ms | p99 ms | errors | load core | ratio |
|---|--:|--:|--:|--:|--:|---|
${line(hello, '1 (hello)')}
${line(health[mid].own, t(health[mid].own, hello, 0.8) + ' of hello')}
${line(floor, `${pct(floor.rps / hello.rps)} of hello (the floor of a database read)`)}
${line(naive, `${pct(naive.rps / hello.rps)} of hello; 1 (naive)`)}
${line(cached, t(cached, hello, 0.5) + ' of hello')}
${line(uncached, t(uncached, naive, 1.5) + ' of naive')}
${line(withKey, t(withKey, naive, 1.5) + ' of naive')}
${line(bySlug, `${pct(bySlug.rps / hello.rps)} of hello`)}
${line(bySlugNoCache, `${pct(bySlugNoCache.rps / naive.rps)} of naive`)}
${line(v1, t(v1, naive, 1) + ' of naive')}
| ${blocked.name} | ${blocked.rps} | ${blocked.p50} | ${blocked.p99} | ${blocked.requests - blocked.non2xx} served (2xx) | ${(blocked.loadCpu * 100).toFixed(0)} % | ${pct(blocked.rps / health[mid].own.rps)} of Sitebase /health (target ≥ 1: ${verdict(blocked.valid && blocked.rps >= health[mid].own.rps)}) |

p99 ≤ 50 ms on every row: ${verdict(p99ok)}. Zero non-2xx on every throughput row: ${verdict([...rows, ...health.map((h) => h.own)].every((r) => r.valid))}.

During the flood (${blocked.requests.toLocaleString('en')} requests), PostgreSQL committed ${after.xacts - before.xacts - 2} transactions and wrote ${after.writes - before.writes} rows (pg_stat_database; the bench's own two reads excluded): the blocked client is answered from memory, and the counts reach the shared table in one batched upsert a second.

Start to ready (\`node dist/src/main.js\` on an initialised, migrated database until \`/health/ready\` answers 200): ${readies.join(', ')} ms (target ≤ 5000 ms: ${verdict(Math.max(...readies) <= 5000)}).`;
    writeSection('hotpath', md);
    console.log(`\n${md}`);
  } finally {
    for (const c of children) await c.stop().catch(() => undefined);
    if (db) await db.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
