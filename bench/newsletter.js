'use strict';
// Newsletter audience benchmark (issue 15): `npm run bench:newsletter` (BENCH_QUICK=1 or --quick: a short run).
//
// The built server and its embedded PostgreSQL run on both cores (an import is work that wants
// every core, as bench/lib.js says of pinning); the load generator (this process) on core 0.
//
//  1. Import of 100,000 CSV rows end to end: `POST …/newsletter/subscriptions/import` (multipart,
//     3 columns, consent, one list), from the first byte sent until the import's status resource
//     says `completed` (the upload is staged in the request, the upserts run as the queued job).
//     Target ≥ 20,000 rows/s, and the server's peak RSS (VmHWM) under 300 MB.
//  2. Import of 1,000,000 CSV rows the same way: rows/s, and the peak RSS again (bounded memory:
//     the upload is spooled to disk and parsed as a stream).
//  3. The subscription list at 1,100,000 subscriptions, 20 a page, with a key: page 1 against a
//     page 1,000,000 rows deep (a cursor near the oldest rows), in the same round; plain and
//     filtered by list and status. Target: the deep page within 20 % of page 1.
//
// Writes the newsletter section of docs/benchmarks.md.
const { chmodSync, mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { cpus, tmpdir } = require('node:os');
const { join } = require('node:path');
const { Client } = require('pg');
const { ROOT, startServer, writeSection, median, PIN, summarize, apiClient, benchServerDb } = require('./lib');
const { measure, LOAD_GENERATOR } = require('./wrk');

const QUICK = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');
const PORT = 3970;
const PG_PORT = 54397;
const KEY = 'sb_live_newsletterbenchnewsletterbench1234';
const SMALL = 100_000;
const LARGE = QUICK ? 300_000 : 1_000_000;
const LIST_SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 4 : 10));
const LIST_WARMUP = QUICK ? 2 : 5;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
const base = `http://127.0.0.1:${PORT}`;
const headers = { 'x-api-key': KEY };

function csv(prefix, rows) {
  const lines = ['email,name,plan'];
  for (let i = 0; i < rows; i++) lines.push(`${prefix}${i}@bench.example,Reader ${i},${i % 3 === 0 ? 'pro' : 'free'}`);
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** Peak and current resident memory of a process, in MB (Linux /proc). */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { peak: Math.round(kb('VmHWM') / 1024), now: Math.round(kb('VmRSS') / 1024) };
}

const api = apiClient(base, headers);

/**
 * One import, from the first byte sent until its status resource says completed, sampling the
 * server's resident memory every 200 ms: the peak of the first and of the second half of the
 * run tell whether memory grows with the rows read (it must not: the upload streams).
 */
async function importRows(listId, file, rows, pid) {
  const samples = [];
  const sampler = setInterval(() => samples.push(memoryOf(pid).now), 200);
  try {
    const result = await importOnce(listId, file, rows);
    const half = Math.ceil(samples.length / 2);
    result.firstHalfPeak = Math.max(...samples.slice(0, half));
    result.secondHalfPeak = Math.max(...samples.slice(half));
    return result;
  } finally {
    clearInterval(sampler);
  }
}

async function importOnce(listId, file, rows) {
  const form = new FormData();
  form.append('listIds', String(listId));
  form.append('consent', 'true');
  form.append('file', new Blob([file], { type: 'text/csv' }), 'readers.csv');
  const started = performance.now();
  const res = await fetch(`${base}/api/v2/sites/demo/newsletter/subscriptions/import`, {
    method: 'POST',
    headers,
    body: form,
  });
  const answered = performance.now();
  let body = await res.json();
  if (res.status !== 202 && res.status !== 200) throw new Error(`import: ${res.status} ${JSON.stringify(body)}`);
  while (body.status !== 'completed') {
    await new Promise((r) => setTimeout(r, 50));
    body = await api('GET', `/api/v2/sites/demo/newsletter/imports/${body.id}`);
  }
  const seconds = (performance.now() - started) / 1000;
  if (body.created + body.updated + body.skipped !== rows || body.invalidCount !== 0)
    throw new Error(`import counted wrong: ${JSON.stringify(body)}`);
  return {
    rows,
    seconds,
    rate: Math.round(rows / seconds),
    answeredMs: Math.round(answered - started),
    status: res.status,
    created: body.created,
  };
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sitebase-bench-newsletter-'));
  chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as its own user and must reach the folder
  let server;
  let db;
  try {
    // Unpinned, server and database alike: an import is work that wants every core
    // (bench/lib.js startServer), and the list rows are compared within their own round.
    let env;
    ({ db, env } = await benchServerDb(dataDir, PG_PORT, {
      key: KEY,
      port: PORT,
      extra: {
        RATE_LIMIT_KEY_MAX: '0',
      },
    }));
    server = await startServer(env, { pin: false, quiet: process.env.BENCH_VERBOSE !== '1' });
    const pid = server.child.pid;
    const idle = memoryOf(pid);
    const list = await api('POST', '/api/v2/sites/demo/newsletter/lists', { name: 'Bench readers' });

    console.error(`import of ${SMALL.toLocaleString('en')} rows…`);
    const small = await importRows(list.id, csv('small', SMALL), SMALL, pid);
    const afterSmall = memoryOf(pid);
    console.error(`  ${small.rate} rows/s (${small.seconds.toFixed(2)} s), peak RSS ${afterSmall.peak} MB`);

    console.error(`import of ${LARGE.toLocaleString('en')} rows…`);
    const large = await importRows(list.id, csv('large', LARGE), LARGE, pid);
    const afterLarge = memoryOf(pid);
    console.error(`  ${large.rate} rows/s (${large.seconds.toFixed(2)} s), peak RSS ${afterLarge.peak} MB`);

    // Fresh statistics after a million inserts, as autovacuum would have them shortly.
    const c = new Client({ connectionString: db.url });
    await c.connect();
    await c.query('VACUUM ANALYZE newsletter_subscriptions');
    await c.query('VACUUM ANALYZE newsletter_memberships');
    const { rows } = await c.query('SELECT count(*)::int AS n, min(id)::bigint AS first FROM newsletter_subscriptions');
    await c.end();
    const total = rows[0].n;
    const { encodeCursor } = require(join(ROOT, 'dist/src/common/pagination/cursor'));
    // A page after 1,000,000 of the newest rows: ids below the 1,000th oldest.
    const deep = encodeCursor([Number(rows[0].first) + 1000]);
    const path = '/api/v2/sites/demo/newsletter/subscriptions';
    const filtered = `listId=${list.id}&status=active`;
    const LIST_ROWS = [
      { id: 'page1', name: 'page 1', url: `${base}${path}?limit=20` },
      {
        id: 'deep',
        name: 'page 50,000 (cursor 1,000,000 rows deep)',
        url: `${base}${path}?limit=20&cursor=${deep}`,
        ref: 'page1',
      },
      { id: 'fpage1', name: 'page 1, listId + status', url: `${base}${path}?limit=20&${filtered}` },
      {
        id: 'fdeep',
        name: 'deep page, listId + status',
        url: `${base}${path}?limit=20&${filtered}&cursor=${deep}`,
        ref: 'fpage1',
      },
    ];
    const rounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      const results = {};
      for (const r of LIST_ROWS) {
        const m = await measure(r.url, {
          seconds: LIST_SECONDS,
          warmup: round === 0 ? LIST_WARMUP : 1,
          connections: 16,
          headers,
        });
        results[r.id] = { ...m, valid: m.non2xx === 0 && m.socketErrors === 0 };
        console.error(
          `round ${round + 1} ${r.name.padEnd(45)} ${String(m.rps).padStart(6)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms  non-2xx ${m.non2xx}`,
        );
      }
      rounds.push(results);
    }

    const pct = (x) => `${(x * 100).toFixed(1)} %`;
    const verdict = (ok) => (ok ? 'met' : '**missed**');
    const listLines = LIST_ROWS.map((r) => {
      const ratios = rounds.map((res) => (r.ref ? res[r.id].rps / res[r.ref].rps : 1));
      const mid = median(ratios);
      const at = ratios.indexOf(mid);
      const m = rounds[at][r.id];
      const allValid = rounds.every((res) => res[r.id].valid);
      const ok = allValid && Math.abs(1 - mid) <= 0.2;
      const ratioText = r.ref
        ? `${pct(mid)} of page 1 (rounds ${ratios.map(pct).join(', ')}); within 20 %: ${verdict(ok)}`
        : '';
      return {
        r,
        ok,
        line: `| ${r.name} | ${m.rps} | ${m.p50} | ${m.p99} | ${m.non2xx + m.socketErrors} | ${ratioText} |`,
      };
    });
    const importLine = (x, mem) =>
      `| ${x.rows.toLocaleString('en')} | ${x.seconds.toFixed(2)} | **${x.rate.toLocaleString('en')}** | ${x.status} after ${x.answeredMs} ms | ${x.firstHalfPeak} MB / ${x.secondHalfPeak} MB | ${mem.peak} MB |`;
    // Bounded: the second half of the large import (rows 500,000 on) peaks no higher than the
    // first half plus 10 %; memory that grew with the rows read would.
    const bounded = large.secondHalfPeak <= large.firstHalfPeak * 1.1;
    summarize(
      `Import of ${SMALL.toLocaleString('en')} CSV rows ≥ 20,000 rows/s, peak RSS < 300 MB`,
      small.rate >= 20000 && afterSmall.peak < 300,
      `${small.rate.toLocaleString('en')} rows/s, ${afterSmall.peak} MB`,
    );
    summarize(
      `Import of ${LARGE.toLocaleString('en')} CSV rows in bounded memory`,
      bounded,
      `${large.rate.toLocaleString('en')} rows/s; RSS peaks ${large.firstHalfPeak} / ${large.secondHalfPeak} MB (1st / 2nd half)`,
    );
    const md = `## Newsletter audience (issue 15)

Run: ${new Date().toISOString()}${QUICK ? ' (quick run)' : ''}, Node ${process.version}, ${cpus().length} cores; the server and its embedded PostgreSQL unpinned (both cores: an import wants every core)${PIN ? ', the load generator on core 0' : ''}. \`npm run bench:newsletter\`.

### Import

\`POST …/newsletter/subscriptions/import\`, a CSV of \`email,name,plan\` rows (new addresses), one list, \`consent=true\`, timed from the first byte sent until \`GET …/newsletter/imports/{id}\` says \`completed\`: the request spools the upload to disk, parses it as a stream (csv-parse) and stages it as chunks of 5,000 rows (one row of arrays each); the queued job upserts a chunk per statement and transaction, two chunks side by side (subscriptions and memberships in one \`INSERT … ON CONFLICT\` each, never a round trip per row). Memory: the server's resident set sampled every 200 ms, the peak in the first and in the second half of the import, and its VmHWM since it started (${idle.now} MB idle).

| rows | seconds | rows/s | answer | RSS peak, 1st / 2nd half | server peak RSS |
|--:|--:|--:|---|--:|--:|
${importLine(small, afterSmall)}
${importLine(large, afterLarge)}

${SMALL.toLocaleString('en')} rows ≥ 20,000 rows/s: ${verdict(small.rate >= 20000)}; peak RSS under 300 MB: ${verdict(afterSmall.peak < 300)}. ${LARGE.toLocaleString('en')} rows in bounded memory (the second half peaks within 10 % of the first): ${verdict(bounded)}; its peak under 300 MB: ${verdict(afterLarge.peak < 300)}.

### Subscription list at ${total.toLocaleString('en')} subscriptions

\`GET …/newsletter/subscriptions?limit=20\` with a key, ${LOAD_GENERATOR}, 16 connections, ${LIST_SECONDS} s per row, ${ROUNDS} round(s); the deep page's cursor points ${(total - 1000).toLocaleString('en')} rows down. Keyset on \`id\` over the index \`(site_id, id)\`; with \`listId\` + \`status\` the scan runs on \`newsletter_memberships (list_id, status, subscription_id)\`, each member's subscription read by primary key (a nested loop). The ratio is taken within a round; the table shows the median round.

| row | req/s | p50 ms | p99 ms | errors | ratio |
|---|--:|--:|--:|--:|---|
${listLines.map((l) => l.line).join('\n')}

Deep pages within 20 % of page 1: ${verdict(listLines.filter((l) => l.r.ref).every((l) => l.ok))}.`;
    writeSection('newsletter', md);
    console.log(`\n${md}`);
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
