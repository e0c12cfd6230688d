'use strict';
// Foundation benchmark (issue 2): start-to-ready with the embedded database, and GET /health
// through the full middleware stack against a bare NestJS hello-world, in the same run.
// Usage: npm run bench   (builds, then runs this; writes docs/benchmarks.md)
const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir, cpus } = require('node:os');
const { join } = require('node:path');
const { ROOT, PIN, spawnNode, startServer, waitFor, load, writeSection, median } = require('./lib');

const PORT = 3900;
const HELLO_PORT = 3901;
const ROUNDS = 5;

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sitebase-bench-'));
  chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as its own user and must reach the folder
  const env = {
    PORT: String(PORT), EMBEDDED_PG_DIR: join(dataDir, 'pg'), EMBEDDED_PG_PORT: '54391',
    BOOTSTRAP_API_KEY: 'sb_live_benchbenchbenchbenchbenchbenchbench12', DATABASE_URL: '',
  };
  try {
    // First start initialises the cluster and migrates; the figure that counts is a later start.
    const first = await startServer(env);
    await first.stop();
    const readies = [];
    for (let i = 0; i < 3; i++) {
      const s = await startServer(env);
      readies.push(s.readyMs);
      await s.stop();
    }

    const server = await startServer(env);
    const hello = spawnNode([join(__dirname, 'hello.js')], { cwd: ROOT, env: { ...process.env, PORT: String(HELLO_PORT) }, stdio: 'inherit' });
    await waitFor(`http://127.0.0.1:${HELLO_PORT}/health`);

    const runs = { hello: [], full: [] };
    await load({ url: `http://127.0.0.1:${HELLO_PORT}/health`, duration: 3 }); // warm-up
    await load({ url: `http://127.0.0.1:${PORT}/health`, duration: 3 });
    for (let round = 0; round < ROUNDS; round++) {
      runs.hello.push(await load({ url: `http://127.0.0.1:${HELLO_PORT}/health`, duration: 6 }));
      runs.full.push(await load({ url: `http://127.0.0.1:${PORT}/health`, duration: 6 }));
    }
    hello.kill('SIGTERM');
    await server.stop();

    // Each round measures both back to back; the median of the per-round ratios resists the
    // drift of a shared machine better than comparing two best runs.
    const ratios = runs.full.map((f, i) => f.rps / runs.hello[i].rps);
    const ratio = median(ratios);
    const mid = ratios.indexOf(ratio);
    const h = runs.hello[mid];
    const f = runs.full[mid];
    const readyMedian = median(readies);
    const md = `## Foundation (issue 2)

Run: ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} cores${PIN ? ' (servers on core 1, autocannon on core 0)' : ''}. \`npm run bench\`.

**Start to ready** (\`node dist/src/main.js\` until \`GET /health/ready\` is 200, embedded PostgreSQL already initialised, migrations applied): ${readies.join(' ms, ')} ms; median **${readyMedian} ms** (target ≤ 5000 ms: ${readyMedian <= 5000 ? 'met' : 'NOT met'}).

**GET /health**, autocannon, 50 connections, ${ROUNDS} rounds of 6 s on each server back to back, both servers up at once; the table shows the median round:

| server | req/s | p50 ms | p97.5 ms | p99 ms | errors |
|---|---|---|---|---|---|
| bare NestJS hello-world | ${h.rps} | ${h.p50} | ${h.p97_5} | ${h.p99} | ${h.errors} |
| Sitebase, full stack (request id, access log, security headers, CORS, JSON body parser, credentials, auth and rate-limit guards, problem filter) | ${f.rps} | ${f.p50} | ${f.p97_5} | ${f.p99} | ${f.errors} |

Sitebase / hello-world per round: ${ratios.map((r) => `${(r * 100).toFixed(1)} %`).join(', ')}; median **${(ratio * 100).toFixed(1)} %** (target ≥ 80 %: ${ratio >= 0.8 ? 'met' : 'NOT met'}).`;
    writeSection('foundation', md);
    console.log(md);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
