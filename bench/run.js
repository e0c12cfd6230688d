'use strict';
// The hot-path benchmark (`npm run bench:hotpath`): one run, every target in it, ratios against baselines
// measured in the same run. The servers and their PostgreSQL share core 1; wrk (1 thread, 64
// connections, 10 s warm-up, 12 s measured) runs on core 0 and its own CPU use is reported.
// Writes the "hotpath" section of docs/benchmarks.md. See docs/performance.md for the method.
const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
const { cpus, tmpdir } = require('node:os');
const { join } = require('node:path');
const { ROOT, PIN, spawnNode, startServer, waitFor, writeSection, median } = require('./lib');
const { measure, LOAD_GENERATOR } = require('./wrk');

const { KEY, ITEMS, startDatabase, seed, seedSession, statements } = require('./fixture');
const PORTS = { sitebase: 3930, nocache: 3931, limited: 3932, hello: 3933, naive: 3934, floor: 3935 };
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);

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
    const sessionToken = await seedSession(db.url);

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
      const child = spawnNode([join(__dirname, file)], {
        cwd: ROOT,
        env: { ...process.env, PORT: String(port), DATABASE_URL: db.url, SITE_ID: String(siteId) },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push({ stop: async () => child.kill('SIGTERM') });
    };
    baseline('hello.js', PORTS.hello);
    baseline('naive.js', PORTS.naive);
    baseline('floor.js', PORTS.floor);
    await waitFor(`http://127.0.0.1:${PORTS.hello}/health`);
    await waitFor(`http://127.0.0.1:${PORTS.naive}/items`);
    await waitFor(`http://127.0.0.1:${PORTS.floor}/`);

    const url = (port, path) => `http://127.0.0.1:${port}${path}`;
    const list = '/api/v2/sites/demo/content';
    const keyed = { 'x-api-key': KEY };
    // Every row in every round; a ratio is taken within its round (both sides measured minutes
    // apart at most), and the table shows each row's median round.
    const ROWS = [
      { id: 'hello', name: 'bare NestJS hello-world', url: url(PORTS.hello, '/health') },
      { id: 'health', name: 'Sitebase GET /health', url: url(PORTS.sitebase, '/health'), ref: 'hello', target: 0.85 },
      { id: 'floor', name: 'bare Node http + pg, one prepared SELECT', url: url(PORTS.floor, '/'), ref: 'hello' },
      {
        id: 'naive',
        name: 'naive NestJS + TypeORM handler (find, take 20)',
        url: url(PORTS.naive, '/items'),
        ref: 'floor',
      },
      {
        id: 'cached',
        name: 'content list, anonymous, read cache on',
        url: url(PORTS.sitebase, `${list}?limit=20`),
        ref: 'hello',
        target: 0.5,
      },
      {
        id: 'uncached',
        name: 'content list, anonymous, cache off',
        url: url(PORTS.nocache, `${list}?limit=20`),
        ref: 'floor',
        target: 0.8,
      },
      {
        id: 'key',
        name: 'content list with an API key',
        url: url(PORTS.sitebase, `${list}?limit=20`),
        headers: keyed,
        ref: 'floor',
        target: 0.8,
      },
      {
        id: 'keyNoCache',
        name: 'content list with an API key, cache off',
        url: url(PORTS.nocache, `${list}?limit=20`),
        headers: keyed,
        ref: 'floor',
      },
      {
        id: 'keySlug',
        name: 'get by slug with an API key',
        url: url(PORTS.sitebase, `${list}/post-500`),
        headers: keyed,
        ref: 'floor',
        target: 0.8,
      },
      {
        id: 'slug',
        name: 'get by slug, anonymous, read cache on',
        url: url(PORTS.sitebase, `${list}/post-500`),
        ref: 'hello',
      },
      {
        id: 'slugNoCache',
        name: 'get by slug, anonymous, cache off',
        url: url(PORTS.nocache, `${list}/post-500`),
        ref: 'floor',
        target: 0.8,
      },
      {
        id: 'v1',
        name: 'GET /v1/demo/pages/20/0 with a key',
        url: url(PORTS.sitebase, '/v1/demo/pages/20/0'),
        headers: keyed,
        ref: 'floor',
        target: 0.8,
      },
      {
        id: 'v1NoCache',
        name: 'GET /v1/demo/pages/20/0 with a key, cache off',
        url: url(PORTS.nocache, '/v1/demo/pages/20/0'),
        headers: keyed,
        ref: 'floor',
      },
      {
        id: 'me',
        name: 'GET /users/me with a site user’s session',
        url: url(PORTS.sitebase, '/api/v2/sites/demo/users/me'),
        headers: { authorization: `Bearer ${sessionToken}` },
        ref: 'health',
        target: 0.7,
      },
      {
        id: 'flood',
        name: 'anonymous flood, blocked: 429s',
        url: url(PORTS.limited, `${list}?limit=20`),
        ref: 'health',
        target: 1,
        refused: true,
      },
    ];
    const rounds = [];
    let floodCost;
    for (let round = 0; round < ROUNDS; round++) {
      const results = {};
      for (const r of ROWS) {
        const before = r.refused ? await statements(db.url) : undefined;
        const m = await measure(r.url, { seconds: SECONDS, warmup: round === 0 ? WARMUP : 2, headers: r.headers });
        if (r.refused) {
          const after = await statements(db.url);
          floodCost = {
            requests: m.requests,
            xacts: after.xacts - before.xacts - 1,
            writes: after.writes - before.writes,
          };
        }
        // A refused flood must be all 429s (apart from the first requests of a window); any other row all 2xx.
        const valid = m.socketErrors === 0 && (r.refused ? m.non2xx >= m.requests - 200 : m.non2xx === 0);
        results[r.id] = { ...r, ...m, valid };
        console.log(
          `round ${round + 1} ${r.name.padEnd(48)} ${String(m.rps).padStart(6)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms  non-2xx ${m.non2xx}  load core ${(m.loadCpu * 100).toFixed(0)} %`,
        );
      }
      rounds.push(results);
    }
    const ratioOf = (res, id) => (res[id].ref ? res[id].rps / res[res[id].ref].rps : 1);
    const f2 = (x) => x.toFixed(2);
    const verdict = (ok) => (ok ? 'met' : '**missed**');
    const lines = ROWS.map((r) => {
      const ratios = rounds.map((res) => ratioOf(res, r.id));
      const mid = median(ratios);
      const m = rounds[ratios.indexOf(mid)][r.id];
      const allValid = rounds.every((res) => res[r.id].valid);
      const ratioText = r.ref
        ? `${f2(mid)} of ${r.ref} (rounds ${ratios.map(f2).join(', ')})${r.target ? `; target ≥ ${r.target}: ${verdict(allValid && mid >= r.target)}` : ''}`
        : '1';
      const errors = r.refused ? `${m.requests - m.non2xx} 2xx` : String(m.non2xx + m.socketErrors);
      return {
        r,
        m,
        mid,
        allValid,
        line: `| ${r.name} | ${m.rps} | ${m.p50} | ${m.p99} | ${errors} | ${(m.loadCpu * 100).toFixed(0)} % | ${ratioText} |`,
      };
    });
    const healthRatios = rounds.map((res) => ratioOf(res, 'health'));
    const p99s = rounds.flatMap((res) => ROWS.filter((r) => !r.refused && r.id !== 'hello').map((r) => res[r.id].p99));
    const md = `## Hot path (issue 7)

Run: ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} cores; ${PIN ? `servers **and their PostgreSQL** pinned to core 1 (${db.pinned ? 'postmaster and every backend' : 'servers only'}), the load generator to core 0` : 'not pinned (taskset missing or one core): figures are indicative only'}. Load: ${LOAD_GENERATOR}, 64 connections, ${WARMUP} s warm-up (2 s in later rounds), ${SECONDS} s measured per row, ${ROUNDS} rounds of every row. Data: ${ITEMS.toLocaleString('en')} published items of about 1 KB in site \`demo\`, in an embedded PostgreSQL the bench starts. \`npm run bench:hotpath\`.

The Sitebase throughput rows run with \`RATE_LIMIT_PUBLIC_MAX=1000000000\` (one load generator is one address; the limiter still counts every hit); the flood row runs a server with the default limit (120 a minute). "cache off" rows run a server with \`CONTENT_CACHE_TTL_MS=0\`, where every request reads PostgreSQL; the other rows run with the defaults (reads with a key are cached too, under keys of their own: docs/content.md). "load core" is wrk's own CPU share of its core: far under 100 % means the server, not the generator, was the limit. A row with a non-2xx answer or a socket error is invalid (the flood row: with anything but 429s after the first window's hits). Ratios are taken within a round; the table shows each row's median round.

| row | req/s | p50 ms | p99 ms | errors | load core | ratio |
|---|--:|--:|--:|--:|--:|---|
${lines.map((l) => l.line).join('\n')}

Every database read is measured against the floor (bare \`http\` + \`pg\`, one prepared SELECT of the same 20 published items, rows serialised as they come: \`bench/floor.js\`), target ≥ 0.8 of its rate per read route (docs/performance.md). GET /health ≥ 0.85 × hello-world in every round: ${verdict(healthRatios.every((x) => x >= 0.85))} (spread ${f2(Math.min(...healthRatios))}–${f2(Math.max(...healthRatios))}). Zero non-2xx on every throughput row: ${verdict(lines.every((l) => l.allValid))}. p99 ≤ 50 ms on every row: ${verdict(p99s.every((x) => x <= 50))} (highest ${Math.max(...p99s)} ms).

During the last flood round (${floodCost.requests.toLocaleString('en')} refused requests), PostgreSQL committed ${floodCost.xacts} transactions and wrote ${floodCost.writes} rows in all (pg_stat_database, the server's background work included): a blocked client is refused from memory, and its hits reach the shared counters in one batched upsert a second.

Start to ready (\`node dist/src/main.js\` on a migrated database until \`/health/ready\` answers 200): ${readies.join(', ')} ms (target ≤ 5000 ms: ${verdict(Math.max(...readies) <= 5000)}).`;
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
