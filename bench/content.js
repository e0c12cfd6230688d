'use strict';
// Content benchmark (issue 4), on 100,000 content items in one site:
// - the published list (20 per page) and get-by-slug, against GET /health in the same run
//   (autocannon for all three; target ≥ 50 % of the /health rate each);
// - full-text search latency (target p95 ≤ 50 ms);
// - the 5,000th page of a keyset list against the first (target: within 20 %).
// Usage: npm run build && node bench/content.js   (writes the content section of docs/benchmarks.md)
// Database: DATABASE_URL's server when set (a throwaway database is created beside it and
// dropped), else an embedded PostgreSQL in a temp folder.
const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir, cpus } = require('node:os');
const { join } = require('node:path');
const { Client } = require('pg');
const { startServer, load, writeSection, median, benchDatabase } = require('./lib');

const PORT = 3920;
const KEY = 'sb_live_contentbenchcontentbenchcontent123';
const ITEMS = 100_000;
const BATCH = 1_000;
const PAGE = 20;
const DEEP_PAGE = 5_000;
const SEARCHES = 400;
const SEARCH_CONCURRENCY = 4;
const DEPTH_SAMPLES = 2000;

// A small vocabulary with a skewed (Zipf-like) choice, so some words are common and most are rare.
const WORDS = (
  'garden rose tulip pasta recipe travel city river mountain coffee bread winter summer market music ' +
  'guitar piano school science planet ocean forest desert bridge castle museum theatre camera photo ' +
  'design kitchen window harbour island valley meadow bicycle engine rocket signal pattern journey ' +
  'library letter story poem novel author chapter season festival lantern harvest orchard vineyard ' +
  'cellar cheese butter honey pepper ginger lemon orange cherry almond walnut maple cedar willow'
).split(' ');

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

function pickWord(random) {
  // Index ~ exponential: word 0 is far more frequent than word 80.
  return WORDS[Math.min(WORDS.length - 1, Math.floor(-Math.log(1 - random()) * 12))];
}

function sentence(random, n) {
  return Array.from({ length: n }, () => pickWord(random)).join(' ');
}

/** 100,000 items in site `demo`, 90 % published over two years, in multi-row INSERTs of 1,000. */
async function seed(url) {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const [{ id: siteId }] = (await db.query("SELECT id FROM sites WHERE name = 'demo'")).rows;
    const random = rng(42);
    const start = Date.parse('2024-01-01T00:00:00.000Z');
    const span = 2 * 365 * 24 * 3600 * 1000;
    const started = Date.now();
    for (let offset = 0; offset < ITEMS; offset += BATCH) {
      const values = [];
      const params = [];
      for (let i = offset; i < Math.min(ITEMS, offset + BATCH); i++) {
        const published = random() < 0.9;
        const createdAt = new Date(start + Math.floor((i / ITEMS) * span));
        const title = `${sentence(random, 4)} ${i}`;
        const row = [
          siteId,
          random() < 0.8 ? 'post' : 'page',
          title,
          `item-${i}`,
          `<p>${sentence(random, 60)}</p><p>${sentence(random, 60)}</p>`,
          sentence(random, 15),
          published ? 'published' : 'draft',
          published ? new Date(createdAt.getTime() + 3600_000) : null,
          [pickWord(random), pickWord(random)],
          [pickWord(random)],
          JSON.stringify([{ id: 1 + Math.floor(random() * 20), name: 'Author' }]),
          createdAt,
        ];
        const base = params.length;
        values.push(`(${row.map((_, k) => `$${base + k + 1}`).join(', ')}, $${base + 12}, 1)`);
        params.push(...row);
      }
      await db.query(
        `INSERT INTO content_items (site_id, type, title, slug, content, excerpt, status, published_at, tags, categories, authors, created_at, updated_at, version)
         VALUES ${values.join(', ')}`,
        params,
      );
    }
    await db.query('VACUUM ANALYZE content_items');
    return { siteId: Number(siteId), seconds: (Date.now() - started) / 1000 };
  } finally {
    await db.end();
  }
}

/** Latencies of `n` requests, `concurrency` at a time, each checked to answer 200. */
async function timed(urls, concurrency, headers = {}) {
  const latencies = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < urls.length) {
        const url = urls[next++];
        const t0 = performance.now();
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
      }
    }),
  );
  const sorted = latencies.sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)];
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), max: sorted[sorted.length - 1] };
}

/** Median latency of the even-indexed and the odd-indexed urls of `urls`, run together. */
async function timedPairs(urls, concurrency, headers) {
  const times = [[], []];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < urls.length) {
        const i = next++;
        const t0 = performance.now();
        const res = await fetch(urls[i], { headers });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${urls[i]}: ${res.status}`);
        times[i % 2].push(performance.now() - t0);
      }
    }),
  );
  return { first: median(times[0]), deep: median(times[1]) };
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sitebase-bench-content-'));
  chmodSync(dataDir, 0o755); // as root, embedded PostgreSQL runs as its own user
  const db = await benchDatabase('content', dataDir, 54393);
  const base = `http://127.0.0.1:${PORT}`;
  // Public reads are rate limited per client address; this run is one address.
  const env = {
    ...db.env,
    PORT: String(PORT),
    BOOTSTRAP_API_KEY: KEY,
    BOOTSTRAP_SITE: 'demo',
    RATE_LIMIT_PUBLIC_MAX: '100000000',
  };
  let server;
  try {
    server = await startServer(env);
    const dbUrl = db.url ?? `postgres://postgres:postgres@127.0.0.1:${env.EMBEDDED_PG_PORT}/sitebase`;
    const seeded = await seed(dbUrl);

    const sql = new Client({ connectionString: dbUrl });
    await sql.connect();
    const slugs = (
      await sql.query("SELECT slug FROM content_items WHERE status = 'published' ORDER BY random() LIMIT 2000")
    ).rows.map((r) => r.slug);
    // The cursor of page 5,000 of the key holder's list (newest created first): the sort key of
    // the last row of page 4,999, in the documented cursor form.
    const [last] = (
      await sql.query(
        'SELECT created_at, id FROM content_items WHERE site_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1',
        [seeded.siteId, (DEEP_PAGE - 1) * PAGE - 1],
      )
    ).rows;
    await sql.end();
    const deepCursor = Buffer.from(JSON.stringify([last.created_at.toISOString(), Number(last.id)])).toString(
      'base64url',
    );
    const keyHeaders = { 'x-api-key': KEY };
    const deep = await (
      await fetch(`${base}/api/v2/sites/demo/content?limit=${PAGE}&cursor=${deepCursor}`, { headers: keyHeaders })
    ).json();
    if (deep.data.length !== PAGE || deep.pagination.nextCursor !== null)
      throw new Error('page 5,000 is not the last full page');

    const listUrl = `${base}/api/v2/sites/demo/content?limit=${PAGE}`;
    let s = 0;
    const bySlug = {
      url: base,
      requests: [
        {
          method: 'GET',
          setupRequest: (req) => ({ ...req, path: `/api/v2/sites/demo/content/${slugs[s++ % slugs.length]}` }),
        },
      ],
    };
    // Warm-up of every route measured.
    await load({ url: `${base}/health`, duration: 3 });
    await load({ url: listUrl, duration: 3 });
    await load({ ...bySlug, duration: 3 });

    const runs = { health: [], list: [], slug: [], first: [], deep: [] };
    for (let round = 0; round < 2; round++) {
      runs.health.push(await load({ url: `${base}/health` }));
      runs.list.push(await load({ url: listUrl }));
      runs.slug.push(await load(bySlug));
      runs.first.push(await load({ url: listUrl, headers: keyHeaders }));
      runs.deep.push(await load({ url: `${listUrl}&cursor=${deepCursor}`, headers: keyHeaders }));
    }
    const best = (xs) => xs.reduce((a, b) => (b.rps > a.rps ? b : a));
    const [health, list, slug, first, deepRun] = ['health', 'list', 'slug', 'first', 'deep'].map((k) => best(runs[k]));
    // Page 1 and page 5,000 interleaved request by request, so both see the same machine load.
    const pair = Array.from({ length: DEPTH_SAMPLES }, (_, i) => (i % 2 ? `${listUrl}&cursor=${deepCursor}` : listUrl));
    const depth = await timedPairs(pair, SEARCH_CONCURRENCY, keyHeaders);

    // The same anonymous routes with the public cache off, for comparison, and the search.
    await server.stop();
    server = await startServer({ ...env, CONTENT_CACHE_TTL_MS: '0' });
    await load({ url: listUrl, duration: 3 });
    const uncachedList = await load({ url: listUrl });
    const uncachedSlug = await load(bySlug);
    // Search with the cache off too: repeated queries would otherwise be answered from memory.
    const searchRandom = rng(7);
    const queries = Array.from({ length: SEARCHES }, (_, i) => {
      const q = i % 3 === 0 ? `${pickWord(searchRandom)} ${pickWord(searchRandom)}` : pickWord(searchRandom);
      return `${base}/api/v2/sites/demo/content?limit=${PAGE}&q=${encodeURIComponent(q)}`;
    });
    await timed(queries.slice(0, 40), SEARCH_CONCURRENCY);
    const search = await timed(queries, SEARCH_CONCURRENCY);

    const pct = (x) => `${(x * 100).toFixed(1)} %`;
    const verdict = (ok) => (ok ? 'met' : 'NOT met');
    const row = (label, r) => `| ${label} | ${r.rps} | ${r.p50} | ${r.p97_5} | ${r.p99} | ${r.errors} |`;
    const deepRatio = depth.deep / depth.first;
    const md = `## Content (issue 4)

Run: ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} cores, ${db.label}. \`npm run build && node bench/content.js\`.

Data: ${ITEMS.toLocaleString('en')} content items in site \`demo\` (90 % published, bodies of about 120 words from an 88-word vocabulary with a skewed choice, two tags, one category, one author each), seeded with multi-row INSERTs of ${BATCH} in ${seeded.seconds.toFixed(1)} s, then \`VACUUM ANALYZE\`. Server started with \`RATE_LIMIT_PUBLIC_MAX=100000000\` (the per-address limit of public reads would otherwise stop one load generator) and \`LOG_LEVEL=warn\`. Anonymous reads go through the in-process public cache (\`CONTENT_CACHE_TTL_MS\`, default 5000 ms; docs/content.md) unless marked; key holders always read the database.

autocannon, 50 connections, 10 s per run, best of 2 rounds, all in the same run; every response checked for errors and non-2xx:

| route | req/s | p50 ms | p97.5 ms | p99 ms | errors |
|---|---|---|---|---|---|
${row('`GET /health`', health)}
${row('`GET /content?limit=20`, anonymous (published list)', list)}
${row('`GET /content/{slug}`, anonymous, 2,000 random published slugs', slug)}
${row('`GET /content?limit=20` with a key, page 1', first)}
${row(`\`GET /content?limit=20&cursor=…\` with a key, page ${DEEP_PAGE.toLocaleString('en')} (the last)`, deepRun)}
${row('`GET /content?limit=20`, anonymous, cache off (`CONTENT_CACHE_TTL_MS=0`, restarted, 1 round)', uncachedList)}
${row('`GET /content/{slug}`, anonymous, cache off (1 round)', uncachedSlug)}

- Published list / health: **${pct(list.rps / health.rps)}** (target ≥ 50 %: ${verdict(list.rps >= health.rps / 2)}); with the cache off ${pct(uncachedList.rps / health.rps)}.
- Get by slug / health: **${pct(slug.rps / health.rps)}** (target ≥ 50 %: ${verdict(slug.rps >= health.rps / 2)}); with the cache off ${pct(uncachedSlug.rps / health.rps)}.
- Page ${DEEP_PAGE.toLocaleString('en')} against page 1, ${DEPTH_SAMPLES} requests alternating between the two, ${SEARCH_CONCURRENCY} at a time, with a key: median **${depth.deep.toFixed(2)} ms** against **${depth.first.toFixed(2)} ms**, ratio **${pct(deepRatio)}** (target: within 20 %: ${verdict(deepRatio <= 1.2)}). The autocannon rows above: ${pct(deepRun.rps / first.rps)} of the rate.

Where the time of the anonymous reads goes, and why the 50 % targets are out of reach here: docs/content.md, "Performance".

**Full-text search** (cache off): ${search.n} anonymous \`GET /content?q=…&limit=20\` (one or two words drawn from the same skewed vocabulary, so some match tens of thousands of items), ${SEARCH_CONCURRENCY} at a time: p50 **${search.p50.toFixed(1)} ms**, p95 **${search.p95.toFixed(1)} ms**, max ${search.max.toFixed(1)} ms (target p95 ≤ 50 ms: ${verdict(search.p95 <= 50)}).`;
    writeSection('content', md);
    console.log(md);
  } finally {
    if (server) await server.stop();
    await db.drop().catch((err) => console.error('could not drop the bench database', err.message));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

module.exports = { seed };
