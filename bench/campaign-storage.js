'use strict';
// The storage part of `npm run bench:campaign` (issue 48): bytes on disk per campaign copy.
//
// A fresh embedded PostgreSQL and server; one list of BENCH_STORAGE_RECIPIENTS (2,000) active
// subscribers seeded by SQL; a campaign of about 30 KB of realistic HTML that compresses poorly
// (bench/storage-lib.js, proseHtml: varied words from a seeded PRNG, headings, lists, 8 absolute
// links, inline styles, `{{ subscriber.name }}`), sent through the HTTP API to an SMTP sink in
// this process. Once every copy is `sent` and the server is idle: VACUUM (ANALYZE), CHECKPOINT,
// and every table's size (heap, TOAST, indexes) against the same reading taken before the send,
// over the copies. Only the HTTP API, the SMTP sink and read-only SQL (plus the seed and VACUUM):
// it measures whatever way the server stores a copy.
//
// A second campaign of three times the body follows: what a further send adds once VACUUM freed
// the first one's dead row versions, and whether the body's size shows in it.
//
// Writes the `campaign-storage` section of docs/benchmarks.md. Answers `ok: false` when
// email_messages grew by more than BENCH_STORAGE_MAX_BYTES (1024) bytes a copy of the second send.
const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { ROOT, ALL_CORES, pinDatabase, sleep, startServer, writeSection, apiClient, query } = require('./lib');
const { growth, settle, vacuumedSizes, liveBytes, mailSink, proseHtml, gzipRatio, fmt } = require('./storage-lib');

const RECIPIENTS = Number(process.env.BENCH_STORAGE_RECIPIENTS ?? 2000);
const MAX_BYTES = Number(process.env.BENCH_STORAGE_MAX_BYTES ?? 1024);
const PORT = 3982;
const PG_PORT = 54397;
const KEY = 'sb_live_storagebenchstoragebenchstorage12';

async function campaignStorage() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sitebase-bench-storage-'));
  chmodSync(dataDir, 0o755);
  const pgDir = join(dataDir, 'pg');
  let server;
  let db;
  let smtp;
  try {
    const { startEmbeddedPostgres } = require(join(ROOT, 'dist/src/database/embedded'));
    db = await startEmbeddedPostgres({ dir: pgDir, port: PG_PORT, database: 'sitebase', persistent: false });
    pinDatabase(pgDir, ALL_CORES);
    smtp = await mailSink();
    server = await startServer(
      {
        DATABASE_URL: db.url,
        BOOTSTRAP_API_KEY: KEY,
        BOOTSTRAP_SITE: 'demo',
        LOG_LEVEL: 'warn',
        PORT: String(PORT),
        SMTP_URL: smtp.url,
        JOBS_POLL_SECONDS: '1',
        RATE_LIMIT_PUBLIC_MAX: '1000000000',
      },
      { pin: false, quiet: process.env.BENCH_VERBOSE !== '1' },
    );
    const api = apiClient(`http://127.0.0.1:${PORT}`, { 'x-api-key': KEY });
    const list = await api('POST', '/api/v2/sites/demo/newsletter/lists', {
      name: 'Storage readers',
      doubleOptIn: false,
      visibility: 'private',
    });
    const [{ id: siteId }] = await query(db.url, `SELECT id FROM sites WHERE name = 'demo'`);
    console.error(`storage: seeding ${fmt(RECIPIENTS)} active subscribers…`);
    await query(
      db.url,
      `INSERT INTO newsletter_subscriptions (site_id, email, name, attributes, source, manage_nonce, consent_at)
       SELECT $1, 'reader' || g || '@storage.example', 'Reader ' || g, '{}'::jsonb, 'import',
              md5(g::text || random()::text), now()
         FROM generate_series(1, $2::int) g`,
      [siteId, RECIPIENTS],
    );
    await query(
      db.url,
      `INSERT INTO newsletter_memberships (subscription_id, list_id, site_id, status, subscribed_at)
       SELECT id, $2, $1, 'active', now() FROM newsletter_subscriptions
        WHERE site_id = $1 AND email LIKE '%@storage.example'`,
      [siteId, list.id],
    );
    const html = proseHtml();
    const ratio = gzipRatio(html);
    const links = (html.match(/<a /g) ?? []).length;
    /** Sends a campaign of `body` to the list and measures what it added, over its copies. */
    const send = async (name, body) => {
      const campaign = await api('POST', '/api/v2/sites/demo/newsletter/campaigns', {
        name,
        subject: 'This week, {{ subscriber.name }}',
        previewText: 'What we read',
        contentHtml: body,
        listIds: [list.id],
      });
      await settle(db.url);
      const before = await vacuumedSizes(db.url);
      const [{ last: lastEvent }] = await query(
        db.url,
        'SELECT COALESCE(max(id), 0)::bigint AS last FROM outbox_events',
      );
      console.error(`storage: sending a ${fmt(Buffer.byteLength(body))}-byte campaign to ${fmt(RECIPIENTS)}…`);
      const started = Date.now();
      await api('PATCH', `/api/v2/sites/demo/newsletter/campaigns/${campaign.id}`, { status: 'scheduled' });
      const tag = `newsletter-campaign:${campaign.id}`;
      for (;;) {
        const [{ n }] = await query(
          db.url,
          `SELECT count(*)::int AS n FROM email_messages WHERE $1 = ANY(tags) AND status = 'sent'`,
          [tag],
        );
        if (n >= RECIPIENTS) break;
        if (Date.now() - started > 30 * 60_000) throw new Error(`only ${n} of ${RECIPIENTS} copies sent in 30 minutes`);
        await sleep(500);
      }
      const seconds = (Date.now() - started) / 1000;
      await settle(db.url);
      const grew = growth(before, await vacuumedSizes(db.url));
      const [copies] = await query(
        db.url,
        `SELECT count(*)::int AS n,
                COALESCE(sum(COALESCE(octet_length(html), 0) + COALESCE(octet_length(text), 0)), 0)::bigint AS body,
                COALESCE(sum(COALESCE(pg_column_size(html), 0) + COALESCE(pg_column_size(text), 0)), 0)::bigint AS stored
           FROM email_messages WHERE $1 = ANY(tags)`,
        [tag],
      );
      const live = {
        email_messages: await liveBytes(db.url, 'email_messages t WHERE $1 = ANY(t.tags)', [tag]),
        newsletter_campaign_recipients: await liveBytes(
          db.url,
          'newsletter_campaign_recipients t WHERE t.campaign_id = $1',
          [campaign.id],
        ),
        outbox_events: await liveBytes(db.url, 'outbox_events t WHERE t.id > $1', [lastEvent]),
      };
      return { bytes: Buffer.byteLength(body), seconds, grew, copies, live, n: copies.n };
    };
    // The first send grows fresh tables, row versions its updates leave included; the second,
    // of a body three times as big, reuses the space VACUUM freed after the first: what each
    // further send costs (the target), and whether the body's size shows in it.
    const first = await send('Storage bench', html);
    const big = proseHtml({ bytes: 3 * 30_000, seed: 49, links: 8 });
    const steady = await send('Storage bench, three times the body', big);
    const perCopyOf = (r) => (r.grew.email_messages ? r.grew.email_messages.total / r.n : 0);
    const perCopy = perCopyOf(steady);
    const ok = perCopy <= MAX_BYTES;

    const order = ['email_messages', 'newsletter_campaign_recipients', 'outbox_events', 'pgboss.*'];
    const names = [
      ...order,
      ...Object.keys({ ...first.grew, ...steady.grew })
        .filter((t) => !order.includes(t))
        .sort(),
    ];
    const cells = (r, t) => {
      const g = r.grew[t] ?? { heap: 0, toast: 0, indexes: 0, total: 0 };
      const l = r.live[t] === undefined ? '—' : fmt(r.live[t] / r.n);
      return `${fmt(g.heap)} | ${fmt(g.toast)} | ${fmt(g.indexes)} | **${fmt(g.total / r.n)}** | ${l}`;
    };
    const row = (t) => `| ${t} | ${cells(first, t)} | ${cells(steady, t)} |`;
    const md = `## Storage per campaign copy (issue 48)

Run: ${new Date().toISOString()}, Node ${process.version}, a fresh embedded PostgreSQL. \`npm run bench:campaign -- --storage\` (also the first part of \`npm run bench:campaign\`).

Two campaigns to the same ${fmt(RECIPIENTS)} active subscribers (seeded by SQL), sent through the API into an SMTP sink. The first: **${fmt(first.bytes)} bytes** of HTML (gzip level 6: **${ratio.toFixed(3)}** of its size; paragraphs of varied words from a seeded PRNG over 6,000 made-up and 100 common words, headings, lists, ${links} absolute links, inline styles, \`{{ subscriber.name }}\`), all \`sent\` after ${first.seconds.toFixed(1)} s, into fresh tables. The second, **${fmt(steady.bytes)} bytes** (gzip ${gzipRatio(big).toFixed(3)}), after the first: what each further send adds once VACUUM has freed the row versions the first one's updates left (a copy is written three times: queued, claimed, sent), all \`sent\` after ${steady.seconds.toFixed(1)} s. Sizes read after \`VACUUM (ANALYZE)\` and \`CHECKPOINT\` once the server was idle, before each send and after it; the growth over the copies. TOAST counts the TOAST table and its index; \`pgboss.*\` is every table of pg-boss's schema.

| table | heap | TOAST | indexes | **per copy** | live | heap | TOAST | indexes | **per copy** | live |
|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|
| | *first send* | | | | | *next send, 3× body* | | | | |
${names.map(row).join('\n')}

Live bytes: \`sum(pg_column_size(t.*))\` over the campaign's rows (its copies, its recipients rows, the events written during the send), values as stored. The copies' html + text: **${fmt(first.copies.body / first.n)} and ${fmt(steady.copies.body / steady.n)} bytes per copy** as text (\`octet_length\`).

email_messages per copy of a further send ≤ ${fmt(MAX_BYTES)} bytes (BENCH_STORAGE_MAX_BYTES): ${ok ? 'met' : `**missed**`} (${fmt(perCopy)}; the first send into fresh tables: ${fmt(perCopyOf(first))}).`;
    console.log(`\n${md}`);
    writeSection('campaign-storage', md);
    return { ok, perCopy, md };
  } finally {
    if (server) await server.stop().catch(() => undefined);
    if (smtp) await smtp.close().catch(() => undefined);
    if (db) await db.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

module.exports = { campaignStorage, MAX_BYTES };
