'use strict';
// Orders benchmark (issue 13): `npm run bench:orders` (BENCH_QUICK=1 or --quick: a short run).
//
// The built server and its embedded PostgreSQL (postmaster and every backend) are pinned to
// core 1, the load generator to core 0, as docs/performance.md says.
//
//  1. Order creation, `POST /api/v2/sites/demo/orders` with a key, 32 concurrent clients
//     (autocannon), each order 2 units of one line, taxed (exclusive, 20 %), with its
//     confirmation mail rendered and queued and its events recorded, in one transaction:
//     - on ONE product: every order takes the same product row (contention on its stock);
//     - spread over 100 products, chosen round-robin.
//     Stock is large (a billion units): no order may be refused, so the only non-2xx allowed
//     is a 409 `out_of_stock`, and there is none; anything else invalidates the row. After each
//     row the database must hold every order answered 201 (plus at most the requests in flight
//     when the load stopped) and exactly the stock the stored orders took.
//  2. Anonymous product list, `GET /api/v2/sites/demo/products` (20 a page), with 10,000
//     published products seeded, side by side with `GET /health` of the same server in the
//     same round: with the catalog cache on (the default, CATALOG_CACHE_TTL_MS=5000), and off
//     (CATALOG_CACHE_TTL_MS=0: every request reads PostgreSQL, the database-path row).
//     Target: list ≥ 50 % of /health with the cache on. Any non-2xx invalidates a row.
//
// Writes the orders section of docs/benchmarks.md.
const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
const { cpus, tmpdir } = require('node:os');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { Client } = require('pg');
const { startServer, writeSection, median, PIN } = require('./lib');
const { startDatabase } = require('./fixture');
const { measure, LOAD_GENERATOR } = require('./wrk');

const QUICK = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');
const PORTS = { cached: 3960, nocache: 3961 };
const PG_PORT = 54396;
const KEY = 'sb_live_ordersbenchordersbenchordersbench1234';
const PRODUCTS = 10_000;
const STOCK = 1_000_000_000;
const ORDER_CONNECTIONS = 32;
const ORDER_SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 6 : 15));
const ORDER_WARMUP = QUICK ? 2 : 5;
const LIST_SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 5 : 12));
const LIST_WARMUP = QUICK ? 2 : 8;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));

async function withDb(url, fn) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * 10,000 published products in site `demo` for the list (position i), one more with a billion
 * units for the contention row, and 100 for the spread row (positions after the list's first
 * pages, so they do not change what the list reads). Tax: 20 % exclusive on the order products.
 */
async function seed(url) {
  return withDb(url, async (db) => {
    const [{ id: siteId }] = (await db.query("SELECT id FROM sites WHERE name = 'demo'")).rows;
    await db.query(
      `UPDATE sites SET settings = jsonb_set(settings, '{orders}', '{"taxRates": {"standard": 2000}}') WHERE id = $1`,
      [siteId],
    );
    const description = 'A hand-thrown stoneware piece, glazed in the studio. '.repeat(4);
    await db.query(
      `INSERT INTO products (site_id, name, slug, description, status, unit_amount, currency, position, quantity_available)
       SELECT $1, 'Product ' || i, 'product-' || i, $2, 'published', 1000 + i % 5000, 'EUR', i, 100
         FROM generate_series(1, $3::int) AS i`,
      [siteId, description, PRODUCTS],
    );
    const { rows } = await db.query(
      `INSERT INTO products (site_id, name, slug, status, unit_amount, currency, position, quantity_available, tax_code, tax_behavior)
       SELECT $1, 'Order product ' || i, 'order-product-' || i, 'published', 1850, 'EUR', 1000000 + i, $2, 'standard', 'exclusive'
         FROM generate_series(0, 100) AS i
       RETURNING id`,
      [siteId, STOCK],
    );
    await db.query('VACUUM ANALYZE products');
    const ids = rows.map((r) => Number(r.id));
    return { siteId: Number(siteId), single: ids[0], spread: ids.slice(1) };
  });
}

async function orderState(url, siteId, productIds) {
  return withDb(url, async (db) => {
    const orders = (await db.query('SELECT count(*)::int AS n FROM orders WHERE site_id = $1', [siteId])).rows[0].n;
    const taken = (
      await db.query(
        'SELECT COALESCE(SUM($2::bigint - quantity_available), 0)::bigint AS n FROM products WHERE id = ANY($1)',
        [productIds, STOCK],
      )
    ).rows[0].n;
    return { orders, taken: Number(taken) };
  });
}

/** The books once the last orders in flight have committed (two equal reads 300 ms apart). */
async function settled(url, siteId, productIds) {
  let last = await orderState(url, siteId, productIds);
  for (;;) {
    await new Promise((r) => setTimeout(r, 300));
    const now = await orderState(url, siteId, productIds);
    if (now.orders === last.orders && now.taken === last.taken) return now;
    last = now;
  }
}

/** One autocannon run of order creation: each request's body from `bodyOf(i)`. */
async function orderLoad(port, bodyOf, seconds) {
  let i = 0;
  const started = process.cpuUsage();
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: ORDER_CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: '/api/v2/sites/demo/orders',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: JSON.stringify(bodyOf(i++)) }),
      },
    ],
  });
  const used = process.cpuUsage(started);
  const codes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    created: codes['201'] ?? 0,
    outOfStock: codes['409'] ?? 0,
    other: Object.entries(codes)
      .filter(([code]) => code !== '201' && code !== '409')
      .reduce((n, [, c]) => n + c, 0),
    socketErrors: result.errors + result.timeouts,
    loadCpu: (used.user + used.system) / 1e6 / seconds,
  };
}

const orderBody = (productId, i) => ({
  lines: [{ productId, quantity: 2 }],
  customer: { email: `customer${i % 1000}@example.com`, name: 'Bench Customer' },
});

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sitebase-bench-orders-'));
  chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as its own user and must reach the folder
  const servers = [];
  let db;
  try {
    db = await startDatabase(join(dataDir, 'pg'), PG_PORT);
    const base = {
      DATABASE_URL: db.url,
      BOOTSTRAP_API_KEY: KEY,
      BOOTSTRAP_SITE: 'demo',
      LOG_LEVEL: 'warn',
      // One load generator is one address: a limit no run reaches (the limiter still counts).
      RATE_LIMIT_PUBLIC_MAX: '1000000000',
      RATE_LIMIT_KEY_MAX: '0',
    };
    // First start migrates and bootstraps.
    await (await startServer({ ...base, PORT: String(PORTS.cached) })).stop();
    const fixture = await seed(db.url);
    console.error(`seeded ${PRODUCTS} products; order products ${fixture.single}, ${fixture.spread[0]}…`);
    const cached = await startServer({ ...base, PORT: String(PORTS.cached) });
    servers.push(cached);
    const nocache = await startServer({ ...base, PORT: String(PORTS.nocache), CATALOG_CACHE_TTL_MS: '0' });
    servers.push(nocache);

    // The product list first, on quiet servers (the order rows leave mail jobs and outbox events
    // behind for the workers and the relay): against /health, same server, same round.
    const url = (port, path) => `http://127.0.0.1:${port}${path}`;
    const LIST_ROWS = [
      { id: 'health', name: 'GET /health', url: url(PORTS.cached, '/health') },
      {
        id: 'cached',
        name: 'GET /products, anonymous, catalog cache on',
        url: url(PORTS.cached, '/api/v2/sites/demo/products'),
        ref: 'health',
        target: 0.5,
      },
      { id: 'healthNoCache', name: 'GET /health (cache-off server)', url: url(PORTS.nocache, '/health') },
      {
        id: 'nocache',
        name: 'GET /products, anonymous, catalog cache off (database path)',
        url: url(PORTS.nocache, '/api/v2/sites/demo/products'),
        ref: 'healthNoCache',
      },
    ];
    const rounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      const results = {};
      for (const r of LIST_ROWS) {
        const m = await measure(r.url, { seconds: LIST_SECONDS, warmup: round === 0 ? LIST_WARMUP : 2 });
        results[r.id] = { ...m, valid: m.non2xx === 0 && m.socketErrors === 0 };
        console.error(
          `round ${round + 1} ${r.name.padEnd(60)} ${String(m.rps).padStart(6)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms  non-2xx ${m.non2xx}  load core ${(m.loadCpu * 100).toFixed(0)} %`,
        );
      }
      rounds.push(results);
    }
    // Then order creation.
    const orderRows = [];
    const ids = [fixture.single, ...fixture.spread];
    for (const row of [
      { name: 'one product (every order takes the same row)', bodyOf: (i) => orderBody(fixture.single, i) },
      { name: 'spread over 100 products', bodyOf: (i) => orderBody(fixture.spread[i % 100], i) },
    ]) {
      console.error(`orders, ${row.name}: warm-up`);
      await orderLoad(PORTS.cached, row.bodyOf, ORDER_WARMUP);
      const before = await settled(db.url, fixture.siteId, ids);
      const m = await orderLoad(PORTS.cached, row.bodyOf, ORDER_SECONDS);
      // autocannon stops with up to one request a connection in flight: the server still
      // completes those, unanswered to the generator. The books must hold every order answered
      // 201, at most one more a connection, and exactly the units the stored orders took.
      const after = await settled(db.url, fixture.siteId, ids);
      const stored = after.orders - before.orders;
      const taken = after.taken - before.taken;
      const consistent = stored >= m.created && stored <= m.created + ORDER_CONNECTIONS && taken === 2 * stored;
      const valid = m.other === 0 && m.socketErrors === 0 && consistent;
      orderRows.push({ ...row, ...m, stored, taken, consistent, valid });
      console.error(
        `  ${m.rps} orders/s, p50 ${m.p50} ms, p99 ${m.p99} ms, 201: ${m.created}, 409: ${m.outOfStock}, other: ${m.other}, socket errors: ${m.socketErrors}; stored ${stored}, units taken ${taken}`,
      );
    }

    const ratio = (res, r) => (r.ref ? res[r.id].rps / res[r.ref].rps : 1);
    const pct = (x) => `${(x * 100).toFixed(1)} %`;
    const verdict = (ok) => (ok ? 'met' : '**missed**');
    // A list row and its /health are shown from the same round: the one whose ratio is the median.
    const roundOf = new Map();
    for (const r of LIST_ROWS.filter((x) => x.ref)) {
      const ratios = rounds.map((res) => ratio(res, r));
      const at = ratios.indexOf(median(ratios));
      roundOf.set(r.id, at);
      roundOf.set(r.ref, at);
    }
    const listLines = LIST_ROWS.map((r) => {
      const ratios = rounds.map((res) => ratio(res, r));
      const mid = median(ratios);
      const m = rounds[roundOf.get(r.id) ?? 0][r.id];
      const allValid = rounds.every((res) => res[r.id].valid);
      const ratioText = r.ref
        ? `${pct(mid)} of /health (rounds ${ratios.map(pct).join(', ')})${r.target ? `; target ≥ ${pct(r.target)}: ${verdict(allValid && mid >= r.target)}` : ''}`
        : `round ${(roundOf.get(r.id) ?? 0) + 1}`;
      return {
        r,
        mid,
        allValid,
        line: `| ${r.name} | ${m.rps} | ${m.p50} | ${m.p99} | ${m.non2xx + m.socketErrors}${allValid ? '' : ' (invalid)'} | ${(m.loadCpu * 100).toFixed(0)} % | ${ratioText} |`,
      };
    });
    const cachedLine = listLines.find((l) => l.r.id === 'cached');
    const orderLines = orderRows.map(
      (o) =>
        `| ${o.name} | **${o.rps}** | ${o.p50} | ${o.p99} | ${o.created} | ${o.outOfStock} | ${o.other + o.socketErrors} | ${o.stored} orders, ${o.taken.toLocaleString('en')} units: ${o.consistent ? 'consistent' : '**inconsistent**'} | ${(o.loadCpu * 100).toFixed(0)} % | ${o.valid ? 'valid' : '**invalid**'} |`,
    );

    const md = `## Orders (issue 13)

Run: ${new Date().toISOString()}${QUICK ? ' (quick run)' : ''}, Node ${process.version}, ${cpus().length} cores; ${PIN ? `the server **and its embedded PostgreSQL** pinned to core 1 (${db.pinned ? 'postmaster and every backend' : 'server only'}), the load generator to core 0` : 'not pinned (taskset missing or one core): figures are indicative only'}. \`npm run bench:orders\`${QUICK ? ' (`BENCH_QUICK=1`)' : ''}.

### Order creation

\`POST /api/v2/sites/demo/orders\` with a key, autocannon, ${ORDER_CONNECTIONS} connections, ${ORDER_WARMUP} s warm-up then ${ORDER_SECONDS} s measured. Each order: one line of 2 units at 18.50 EUR, taxed 20 % exclusive; in one transaction the catalog prices it, takes its stock (one conditional UPDATE), the site's counter gives its number, the order and its line are written, the confirmation mail is rendered and queued (a message row and a pg-boss job) and \`order.created\` and \`product.updated\` are recorded; the outbox relay and the job workers run in the same server. Stock: a billion units a product, so no order may be refused: the only non-2xx allowed is a 409 \`out_of_stock\` (there is none), anything else invalidates the row. After each row the database must hold every order answered 201 (and at most one more a connection: autocannon stops with requests in flight, which the server still completes) and exactly the units the stored orders took.

| row | orders/s | p50 ms | p99 ms | 201 | 409 | other non-2xx | database after the row | load core | row |
|---|--:|--:|--:|--:|--:|--:|---|--:|---|
${orderLines.join('\n')}

Where an order's time goes (measured while building it: \`node --cpu-prof\` of the server, \`/proc\` CPU of the server and of each PostgreSQL backend, the statements an order sends): core 1 is 100 % busy in both rows, about two thirds the server and one third PostgreSQL; an order costs some 15 statements in its transaction (pricing, the site's tax settings, the stock and its \`product.updated\`, one statement for the number, the order and its lines, the mail's template, message and job, \`order.created\`) and about 15 more afterwards (the outbox relay dispatching two events, the delivery job). p50 is queueing: 32 clients on one core. The one-product row is no slower than the spread one: the product's row lock and the site's number counter (held from the order's write to its commit, so numbers have no gaps) serialise commits, but the core, not the locks, is the limit here. Figures drift ±20 % between runs on this shared VM.

### Anonymous product list

\`GET /api/v2/sites/demo/products\` (20 a page) with ${PRODUCTS.toLocaleString('en')} published products seeded, anonymous, against \`GET /health\` of the same server in the same round. Load: ${LOAD_GENERATOR}, 64 connections, ${LIST_WARMUP} s warm-up (2 s in later rounds), ${LIST_SECONDS} s measured per row, ${ROUNDS} round${ROUNDS > 1 ? 's' : ''}; each list row is shown from its median round, beside the /health of that round. The cache-off server runs \`CATALOG_CACHE_TTL_MS=0\`: every request reads PostgreSQL (ShapedReads, one index scan). Any non-2xx invalidates a row.

| row | req/s | p50 ms | p99 ms | errors | load core | ratio |
|---|--:|--:|--:|--:|--:|---|
${listLines.map((l) => l.line).join('\n')}

Product list ≥ 50 % of /health with the catalog cache on: ${verdict(cachedLine.allValid && cachedLine.mid >= 0.5)} (${pct(cachedLine.mid)}). Every order row valid: ${verdict(orderRows.every((o) => o.valid))}.`;
    writeSection('orders', md);
    console.log(`\n${md}`);
  } finally {
    for (const s of servers) await s.stop().catch(() => undefined);
    if (db) await db.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
