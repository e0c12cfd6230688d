'use strict';
// Helpers of the storage benches (bench/campaign-storage.js, bench/storage.js): relation sizes on
// disk (heap, TOAST, indexes) read by SQL after VACUUM, the growth between two readings, an SMTP
// sink that keeps the mails it is asked to keep, and a seeded generator of realistic HTML that
// compresses about as poorly as real prose with markup.
const { gzipSync } = require('node:zlib');
const { simpleParser } = require('mailparser');
const { SMTPServer } = require('smtp-server');
const { query, sleep } = require('./lib');

/** pg-boss's schema (src/common/queue/queue.service.ts, SCHEMA): its tables are summed as one row. */
const PGBOSS = 'pgboss';

/**
 * Every table of the public and pg-boss schemas: heap, TOAST (table and index) and indexes, in
 * bytes, by name; a partition counts under its parent's name (a partitioned parent has no storage
 * of its own), and pg-boss's tables are summed under `pgboss.*`.
 */
async function sizes(url) {
  const rows = await query(
    url,
    `SELECT n.nspname AS schema, COALESCE(p.relname, c.relname) AS name,
            pg_relation_size(c.oid)::bigint AS heap,
            COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0)::bigint AS toast,
            pg_indexes_size(c.oid)::bigint AS indexes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_inherits i ON i.inhrelid = c.oid LEFT JOIN pg_class p ON p.oid = i.inhparent
      WHERE c.relkind IN ('r', 'm') AND n.nspname IN ('public', $1)`,
    [PGBOSS],
  );
  const out = {};
  for (const r of rows) {
    const key = r.schema === PGBOSS ? `${PGBOSS}.*` : r.name;
    const s = (out[key] ??= { heap: 0, toast: 0, indexes: 0, total: 0, tables: 0 });
    s.heap += Number(r.heap);
    s.toast += Number(r.toast);
    s.indexes += Number(r.indexes);
    s.total += Number(r.heap) + Number(r.toast) + Number(r.indexes);
    s.tables += 1;
  }
  return out;
}

/** Growth of each relation between two `sizes` readings (only those that grew or shrank). */
function growth(before, after) {
  const out = {};
  for (const [name, a] of Object.entries(after)) {
    const b = before[name] ?? { heap: 0, toast: 0, indexes: 0, total: 0 };
    const d = { heap: a.heap - b.heap, toast: a.toast - b.toast, indexes: a.indexes - b.indexes };
    d.total = d.heap + d.toast + d.indexes;
    if (d.total !== 0) out[name] = d;
  }
  return out;
}

/**
 * Waits until the server's background work is done (every outbox event dispatched or given up,
 * no pg-boss job due, created, retrying or active), read twice 500 ms apart; at most `timeoutMs`.
 */
async function settle(url, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  for (;;) {
    const [r] = await query(
      url,
      `SELECT (SELECT count(*) FROM outbox_events WHERE dispatched_at IS NULL AND parked_at IS NULL)::int AS outbox,
              (SELECT count(*) FROM ${PGBOSS}.job
                WHERE state IN ('created', 'retry', 'active') AND start_after <= now())::int AS jobs`,
    );
    quiet = r.outbox === 0 && r.jobs === 0 ? quiet + 1 : 0;
    if (quiet >= 2) return true;
    if (Date.now() > deadline) {
      console.error(`  not settled after ${timeoutMs / 1000} s: ${r.outbox} outbox events, ${r.jobs} jobs pending`);
      return false;
    }
    await sleep(500);
  }
}

/**
 * VACUUM (ANALYZE) of the whole database (with `full`, a VACUUM (FULL) first: every table
 * rewritten without its free space, so that work measured next cannot hide in space earlier work
 * left), a CHECKPOINT, then the sizes.
 */
async function vacuumedSizes(url, { full = false } = {}) {
  // After FULL, a plain VACUUM too: it gives the rewritten files back their free space and
  // visibility maps, which the reading after the work would otherwise count as its growth.
  if (full) await query(url, 'VACUUM (FULL)');
  await query(url, 'VACUUM (ANALYZE)');
  await query(url, 'CHECKPOINT');
  return sizes(url);
}

/** Sum of pg_column_size(t.*) (the rows' live bytes, TOASTed values as stored) of `from` (SQL after FROM). */
async function liveBytes(url, from, params = []) {
  const [r] = await query(url, `SELECT COALESCE(sum(pg_column_size(t.*)), 0)::bigint AS n FROM ${from}`, params);
  return Number(r.n);
}

/**
 * An SMTP sink in this process: counts every mail; keeps (parsed) those whose recipient `keep`
 * accepts, in `mails` (to, subject, html, text).
 */
function mailSink(keep = () => false) {
  const mails = [];
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    maxClients: 100,
    onData(stream, session, callback) {
      const to = session.envelope.rcptTo.map((r) => r.address);
      const chunks = [];
      const kept = to.some(keep);
      stream.on('data', (c) => kept && chunks.push(c));
      stream.on('end', async () => {
        received += 1;
        if (kept) {
          const parsed = await simpleParser(Buffer.concat(chunks));
          mails.push({ to, subject: parsed.subject, html: parsed.html || '', text: parsed.text || '' });
        }
        callback(null, 'OK');
      });
    },
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `smtp://127.0.0.1:${server.server.address().port}`,
        mails,
        received: () => received,
        /** Resolves with the kept mails `pick` accepts once there are `n` of them. */
        async waitFor(pick, n, timeoutMs = 120_000) {
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            const got = mails.filter(pick);
            if (got.length >= n) return got;
            if (Date.now() > deadline) throw new Error(`SMTP sink: ${got.length} of ${n} mails in time`);
            await sleep(100);
          }
        },
        close: () => new Promise((r) => server.close(r)),
      }),
    ),
  );
}

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = (
  'ka lo mi ren tal vor sen dra pel qui no bar est lin gor ath uma shi ter vel mon cra fin ol ' +
  'zen ric bo ha lum tre sta ne pra dor isk yel wan pho gri ul mer cas tin ob fel ru sco ande ' +
  'pli vin har sol ept nu gla mar ist cor ven ib tho lak erd mus fra ond sil'
).split(' ');
const COMMON = (
  'the of and to in a is that for it as was with be by on not he this are or his from at which ' +
  'but have an they you were her she there been one all we their has would when if so no will ' +
  'more can said about what out up them into some time only new other these could than its'
).split(' ');

/**
 * About `bytes` of newsletter HTML drawn by a seeded PRNG: headings, paragraphs of varied words
 * (two in three from a vocabulary of `vocabulary` made-up words, one in three from common English
 * words), lists, `links` absolute links, inline styles, and `{{ subscriber.name }}`.
 */
function proseHtml({ bytes = 30_000, seed = 48, vocabulary = 6000, links = 8 } = {}) {
  const rnd = prng(seed);
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  const words = new Set();
  while (words.size < vocabulary) {
    let w = '';
    for (let n = 1 + Math.floor(rnd() * 3.2); n > 0; n--) w += pick(SYLLABLES);
    words.add(w);
  }
  const vocab = [...words];
  const word = () => (rnd() < 2 / 3 ? pick(vocab) : pick(COMMON));
  const sentence = () => {
    const n = 6 + Math.floor(rnd() * 14);
    const ws = Array.from({ length: n }, word);
    ws[0] = ws[0][0].toUpperCase() + ws[0].slice(1);
    return `${ws.join(' ')}${pick(['.', '.', '.', '?', '!'])}`;
  };
  const styles = {
    p: 'margin:0 0 16px;font-family:Georgia,serif;font-size:16px;line-height:1.6;color:#333333',
    h2: 'margin:24px 0 8px;font-family:Helvetica,Arial,sans-serif;font-size:22px;color:#111111',
    li: 'margin:0 0 6px;font-family:Georgia,serif;font-size:15px;color:#444444',
    a: 'color:#1a5fb4;text-decoration:underline',
  };
  let linked = 0;
  const link = () => {
    linked += 1;
    const slug = `${pick(vocab)}-${pick(vocab)}`;
    return `<a href="https://news.example/2026/${linked}/${slug}?ref=letter" style="${styles.a}">${pick(vocab)} ${pick(vocab)}</a>`;
  };
  const parts = [
    '<html><body style="margin:0;padding:0;background:#f4f4f4">',
    '<div style="max-width:640px;margin:0 auto;padding:24px;background:#ffffff">',
    `<p style="${styles.p}">Hello {{ subscriber.name }},</p>`,
  ];
  let size = parts.join('').length;
  const tail =
    '<p style="font-size:12px;color:#888888">You receive this because you subscribed.</p></div></body></html>';
  for (let block = 0; size + tail.length < bytes; block++) {
    let html;
    if (block % 5 === 0) html = `<h2 style="${styles.h2}">${sentence().slice(0, -1)}</h2>`;
    else if (block % 7 === 3) {
      html = `<ul>${Array.from({ length: 3 + Math.floor(rnd() * 3) }, () => `<li style="${styles.li}">${sentence()}</li>`).join('')}</ul>`;
    } else {
      const ss = Array.from({ length: 3 + Math.floor(rnd() * 4) }, sentence);
      if (linked < links && block % 3 === 1) ss.splice(1, 0, `Read ${link()}.`);
      html = `<p style="${styles.p}">${ss.join(' ')}</p>`;
    }
    parts.push(html);
    size += html.length;
  }
  while (linked < links) parts.push(`<p style="${styles.p}">More: ${link()}</p>`);
  parts.push(tail);
  return parts.join('\n');
}

/** gzip (level 6) size over raw size of a string's UTF-8 bytes. */
function gzipRatio(s) {
  const raw = Buffer.from(s);
  return gzipSync(raw, { level: 6 }).length / raw.length;
}

const fmt = (n) => Math.round(n).toLocaleString('en');

module.exports = { PGBOSS, sizes, growth, settle, vacuumedSizes, liveBytes, mailSink, prng, proseHtml, gzipRatio, fmt };
