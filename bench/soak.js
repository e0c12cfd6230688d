'use strict';
// `npm run soak` (issue 18): SOAK_MINUTES (10) of mixed load at a fixed rate (SOAK_RATE requests
// a second, 200) against one server on an embedded PostgreSQL, loopback only. Reads and writes
// of every kind a site sees (public lists and gets, keyed lists, a member's /users/me, open
// tracking, orders, content edits), each answer checked. Every minute: requests, 5xx, other
// non-2xx, p50/p99 latency and the server's resident memory. Passes with zero 5xx, memory flat
// (the last minute's RSS within 15 % of the second minute's: the first warms caches) and latency
// flat (the last minute's p99 at most twice the second minute's). Not in CI. Writes the "soak"
// section of docs/reliability.md.
const { chmodSync, mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { Client } = require('pg');
const { startServer, writeSection, benchServerDb } = require('./lib');
const {
  siteOf,
  seedContent,
  seedProducts,
  seedSubscriptions,
  seedUsers,
  seedSessions,
  seedSentCampaign,
} = require('./seed');

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const RATE = Number(process.env.SOAK_RATE ?? 200);
const PORT = 3995;
const PG_PORT = 54400;
const KEY = 'sb_live_soaksoaksoaksoaksoaksoaksoak12345';

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024);
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sitebase-soak-'));
  chmodSync(dataDir, 0o755);
  let server;
  let db;
  try {
    let env;
    ({ db, env } = await benchServerDb(dataDir, PG_PORT, {
      key: KEY,
      port: PORT,
      extra: {
        // One load generator is one address: the anonymous limit would refuse it (its 429s are
        // measured elsewhere); the limiter still counts every request.
        RATE_LIMIT_PUBLIC_MAX: '1000000000',
        RATE_LIMIT_KEY_MAX: '0',
      },
    }));
    server = await startServer(env, { pin: false });
    await server.stop();
    const c = new Client({ connectionString: db.url });
    await c.connect();
    const site = await siteOf(c, 'demo');
    await seedContent(c, site.id, 1, 10_000, 'post-');
    await seedProducts(c, site.id, 1, 1000);
    const { rows: list } = await c.query(
      `INSERT INTO newsletter_lists (site_id, name, double_opt_in, visibility) VALUES ($1, 'Readers', false, 'private') RETURNING id`,
      [site.id],
    );
    await seedSubscriptions(c, site.id, 1, 20_000, Number(list[0].id));
    await seedUsers(c, site.id, 1, 1000);
    const sessions = await seedSessions(c, site.id, 1000);
    const { openPaths } = await seedSentCampaign(c, site.id, Number(list[0].id), 20_000, 'demo');
    const { rows: products } = await c.query('SELECT id FROM products WHERE site_id = $1 ORDER BY id LIMIT 100', [
      site.id,
    ]);
    await c.query('VACUUM ANALYZE');
    await c.end();
    server = await startServer(env, { pin: false });

    const v2 = '/api/v2/sites/demo';
    const keyed = { 'x-api-key': KEY };
    const json = { ...keyed, 'content-type': 'application/json' };
    // The mix, by weight: mostly public reads, as a site's traffic is.
    const MIX = [
      [30, (i) => ({ method: 'GET', path: `${v2}/content?limit=20` })],
      [20, (i) => ({ method: 'GET', path: `${v2}/content/post-${1 + (i % 10_000)}` })],
      [10, (i) => ({ method: 'GET', path: `${v2}/products?limit=20` })],
      [5, (i) => ({ method: 'GET', path: `${v2}/products/product-${1 + (i % 1000)}` })],
      [
        8,
        (i) => ({
          method: 'GET',
          path: `${v2}/users/me`,
          headers: { authorization: `Bearer ${sessions[i % sessions.length]}` },
        }),
      ],
      [10, (i) => ({ method: 'POST', path: openPaths[i % openPaths.length] })],
      [5, (i) => ({ method: 'GET', path: `${v2}/newsletter/subscriptions?limit=20`, headers: keyed })],
      [4, (i) => ({ method: 'GET', path: '/v1/demo/pages/20/0', headers: keyed })],
      [
        4,
        (i) => ({
          method: 'POST',
          path: `${v2}/orders`,
          headers: json,
          body: JSON.stringify({
            lines: [{ productId: Number(products[i % products.length].id), quantity: 1 }],
            customer: { email: `soak${i % 500}@example.com`, name: 'Soak' },
          }),
        }),
      ],
      [
        4,
        (i) => ({
          method: 'POST',
          path: `${v2}/content`,
          headers: json,
          body: JSON.stringify({ type: 'post', title: `Soak ${i}`, content: '<p>Soak</p>' }),
        }),
      ],
    ];
    const wheel = MIX.flatMap(([w, f]) => Array.from({ length: w }, () => f));
    let n = 0;
    const requests = [{ setupRequest: (req) => ({ ...req, ...wheel[n % wheel.length](n++) }) }];
    const minutes = [];
    for (let m = 0; m < MINUTES; m++) {
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(server.child.pid))), 1000);
      const r = await autocannon({
        url: `http://127.0.0.1:${PORT}`,
        connections: 32,
        overallRate: RATE,
        duration: 60,
        requests,
      });
      clearInterval(sampler);
      const row = {
        minute: m + 1,
        requests: r.requests.total,
        rps: Math.round(r.requests.average),
        s5xx: r['5xx'],
        other: r['1xx'] + r['3xx'] + r['4xx'] + r.errors + r.timeouts,
        p50: r.latency.p50,
        p99: r.latency.p99,
        rss: peak,
      };
      minutes.push(row);
      console.error(
        `minute ${row.minute}: ${row.rps} req/s, 5xx ${row.s5xx}, other non-2xx/errors ${row.other}, p50 ${row.p50} ms, p99 ${row.p99} ms, RSS ${row.rss} MB`,
      );
    }
    await server.stop();
    server = undefined;
    const second = minutes[Math.min(1, minutes.length - 1)];
    const last = minutes.at(-1);
    const no5xx = minutes.every((x) => x.s5xx === 0);
    const clean = minutes.every((x) => x.other === 0);
    const memFlat = last.rss <= second.rss * 1.15;
    const latFlat = last.p99 <= Math.max(second.p99 * 2, 20);
    const verdict = (ok) => (ok ? 'met' : '**missed**');
    const total = minutes.reduce((a, x) => a + x.requests, 0);
    const md = `## Soak (\`npm run soak\`)

Run: ${new Date().toISOString()}, Node ${process.version}. One server (\`node dist/src/main.js\`, every default but the anonymous rate limit, which one load generator would hit) on an embedded PostgreSQL with 10,000 content items, 1,000 products, 20,000 subscriptions, 1,000 members with sessions and a sent campaign; autocannon, 32 connections, a fixed ${RATE} requests a second for ${MINUTES} minutes (${total.toLocaleString('en')} requests), all on 127.0.0.1. The mix: 30 % content lists, 20 % content by slug, 10 % product lists, 5 % products, 8 % \`/users/me\`, 10 % \`POST track/open\`, 5 % subscription lists with a key, 4 % v1 pages, 4 % orders, 4 % content created.

| minute | req/s | 5xx | other non-2xx / errors | p50 ms | p99 ms | server RSS MB |
|--:|--:|--:|--:|--:|--:|--:|
${minutes.map((x) => `| ${x.minute} | ${x.rps} | ${x.s5xx} | ${x.other} | ${x.p50} | ${x.p99} | ${x.rss} |`).join('\n')}

Zero 5xx: ${verdict(no5xx)}; every answer 2xx: ${verdict(clean)}. Memory flat (the last minute within 15 % of the second): ${verdict(memFlat)} (${second.rss} → ${last.rss} MB). Latency flat (the last minute's p99 at most twice the second's): ${verdict(latFlat)} (${second.p99} → ${last.p99} ms).`;
    writeSection('soak', md, 'docs/reliability.md', '# Reliability\n');
    console.log(md);
    if (!(no5xx && memFlat && latFlat)) process.exitCode = 1;
  } finally {
    if (server) await server.stop().catch(() => undefined);
    if (db) await db.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
