'use strict';
// Storage per unit of work (issue 48, point 3): `npm run bench:storage`.
//
// One server on a fresh embedded PostgreSQL, an SMTP sink and a webhook receiver in this process.
// For each kind of work, BENCH_STORAGE_UNITS (500) units through the HTTP API. Before them, with
// the server idle (outbox dispatched, no pg-boss job due): VACUUM (FULL), VACUUM (ANALYZE),
// CHECKPOINT and every table's size on disk (heap, TOAST, indexes; bench/storage-lib.js); after
// them, idle again: VACUUM (ANALYZE), CHECKPOINT and the sizes. A table's growth over the units is
// its bytes per unit; beside it, the growth of its rows' live bytes (sum of pg_column_size over
// the table) over the units. Shown per kind: the tables the work is expected to write, then any
// other that grew by three pages or more (a single 8 KB page is 16 bytes a unit at 500 units:
// page granularity, not a cost). Orders are recorded as paid with `PATCH …/payment` (a manual
// order: no Stripe).
//
// Writes the `storage` section of docs/benchmarks.md.
const http = require('node:http');
const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { benchServerDb, sleep, startServer, writeSection, apiClient, query } = require('./lib');
const { growth, settle, vacuumedSizes, liveBytes, mailSink, proseHtml, fmt } = require('./storage-lib');

const UNITS = Number(process.env.BENCH_STORAGE_UNITS ?? 500);
const PORT = 3983;
const PG_PORT = 54396;
const KEY = 'sb_live_storagebenchunitsstoragebenchunit1';
const base = `http://127.0.0.1:${PORT}`;
const site = `${base}/api/v2/sites/demo`;
const api = apiClient(base, { 'x-api-key': KEY });
const v2 = '/api/v2/sites/demo';

/** `fn(i)` for i in 0..n-1, `concurrency` at a time. */
async function pool(n, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

/** A public POST (no key) that must answer 2xx; answers the parsed body. */
async function publicPost(path, body) {
  const res = await fetch(`${site}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function waitCount(url, sql, params, n, what) {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const [{ c }] = await query(url, sql, params);
    if (c >= n) return;
    if (Date.now() > deadline) throw new Error(`${what}: ${c} of ${n}`);
    await sleep(300);
  }
}

/** A webhook receiver answering 200 to every POST; counts them. */
function receiver() {
  let count = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count += 1;
      res.end('ok');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}/hook`,
        count: () => count,
        close: () => new Promise((r) => server.close(r)),
      }),
    ),
  );
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sitebase-bench-units-'));
  chmodSync(dataDir, 0o755);
  let server;
  let db;
  let smtp;
  let rx;
  try {
    smtp = await mailSink((a) => a.endsWith('@storage.example'));
    rx = await receiver();
    const made = await benchServerDb(dataDir, PG_PORT, {
      key: KEY,
      port: PORT,
      extra: {
        SMTP_URL: smtp.url,
        JOBS_POLL_SECONDS: '1',
        RATE_LIMIT_PUBLIC_MAX: '1000000000',
        USER_OTP_IP_HOURLY_LIMIT: '1000000',
        NEWSLETTER_SUBSCRIBE_IP_HOURLY_LIMIT: '1000000',
        WEBHOOKS_ALLOW_PRIVATE: 'true',
        WEBHOOKS_ALLOW_HTTP: 'true',
      },
    });
    db = made.db;
    const url = db.url;
    server = await startServer(made.env, { pin: false, quiet: process.env.BENCH_VERBOSE !== '1' });
    const [{ id: siteId }] = await query(url, `SELECT id FROM sites WHERE name = 'demo'`);

    // Set-up, outside every measurement: a product, a public double opt-in list, and a small
    // campaign delivered to UNITS subscribers (their opens and clicks are units below).
    const product = await api('POST', `${v2}/products`, { name: 'Mug', unitAmount: 1000, currency: 'EUR' });
    const publicList = await api('POST', `${v2}/newsletter/lists`, {
      name: 'Weekly',
      doubleOptIn: true,
      visibility: 'public',
    });
    const readers = await api('POST', `${v2}/newsletter/lists`, {
      name: 'Readers',
      doubleOptIn: false,
      visibility: 'private',
    });
    await query(
      url,
      `WITH s AS (
         INSERT INTO newsletter_subscriptions (site_id, email, name, attributes, source, manage_nonce, consent_at)
         SELECT $1, 'track' || g || '@storage.example', 'Reader ' || g, '{}'::jsonb, 'import', md5(g::text || random()::text), now()
           FROM generate_series(1, $2::int) g RETURNING id)
       INSERT INTO newsletter_memberships (subscription_id, list_id, site_id, status, subscribed_at)
       SELECT id, $3, $1, 'active', now() FROM s`,
      [siteId, UNITS, readers.id],
    );
    const campaign = await api('POST', `${v2}/newsletter/campaigns`, {
      name: 'Tracking',
      subject: 'Hello {{ subscriber.name }}',
      contentHtml: proseHtml({ bytes: 3000, links: 2 }),
      listIds: [readers.id],
    });
    await api('PATCH', `${v2}/newsletter/campaigns/${campaign.id}`, { status: 'scheduled' });
    const copies = await smtp.waitFor((m) => m.to[0].startsWith('track'), UNITS);
    const tracked = (kind) =>
      copies.map((m) => {
        const path = new RegExp(`/api/v2/sites/demo/newsletter/track/${kind}/[^"'\\s<>]+`).exec(m.html)?.[0];
        if (!path) throw new Error(`no ${kind} link in a copy`);
        return path.replace(/&amp;/g, '&');
      });
    const opens = tracked('open');
    const clicks = tracked('click');
    const mailHtml = proseHtml({ bytes: 3000, links: 2, seed: 7 }).replace('{{ subscriber.name }}', 'there');

    const kinds = [
      {
        work: 'transactional mail (`POST …/email/send`, 3 KB of HTML)',
        tables: ['email_messages', 'outbox_events', 'pgboss.*'],
        async run() {
          await pool(UNITS, 8, (i) =>
            api('POST', `${v2}/email/send`, {
              to: [{ email: `mail${i}@storage.example`, name: `Reader ${i}` }],
              subject: 'Your receipt',
              html: mailHtml,
              tags: ['storage-bench'],
            }),
          );
          await waitCount(
            url,
            `SELECT count(*)::int AS c FROM email_messages WHERE 'storage-bench' = ANY(tags) AND status = 'sent'`,
            [],
            UNITS,
            'mails sent',
          );
        },
      },
      {
        work: 'tracking open (GET the pixel of a copy)',
        tables: ['newsletter_tracking_events', 'newsletter_campaign_recipients', 'newsletter_campaign_stats'],
        run: () => pool(UNITS, 8, (i) => fetch(`${base}${opens[i]}`).then((r) => r.arrayBuffer())),
      },
      {
        work: 'tracking click (GET a click link of a copy)',
        tables: ['newsletter_tracking_events', 'newsletter_campaign_recipients', 'newsletter_campaign_stats'],
        run: () =>
          pool(UNITS, 8, (i) => fetch(`${base}${clicks[i]}`, { redirect: 'manual' }).then((r) => r.arrayBuffer())),
      },
      {
        work: 'order placed (`POST …/orders`, one line) and paid (`PATCH …/orders/{id}/payment`)',
        tables: ['orders', 'order_lines', 'outbox_events', 'email_messages', 'pgboss.*'],
        run: () =>
          pool(UNITS, 8, async (i) => {
            const order = await api('POST', `${v2}/orders`, {
              lines: [{ productId: product.id, quantity: 1 }],
              customer: { email: `buyer${i}@storage.example`, name: `Buyer ${i}` },
            });
            await api('PATCH', `${v2}/orders/${order.id}/payment`, { paymentStatus: 'paid' });
          }),
      },
      {
        work: 'a POST with `Idempotency-Key` (an order, `POST …/orders`; its answer is kept)',
        tables: ['idempotency_keys'],
        only: true,
        run: () =>
          pool(UNITS, 8, async (i) => {
            const res = await fetch(`${site}/orders`, {
              method: 'POST',
              headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'idempotency-key': `storage-${i}` },
              body: JSON.stringify({
                lines: [{ productId: product.id, quantity: 1 }],
                customer: { email: `again${i}@storage.example` },
              }),
            });
            if (res.status !== 201) throw new Error(`POST orders with Idempotency-Key: ${res.status}`);
            await res.arrayBuffer();
          }),
      },
      {
        work: 'site user sign-in (`request-otp` + `verify-otp`, code read from the mail)',
        tables: ['user_otps', 'user_sessions', 'site_users', 'email_messages'],
        run: () =>
          pool(UNITS, 8, async (i) => {
            const email = `user${i}@storage.example`;
            await publicPost('/users/request-otp', { email });
            const [mail] = await smtp.waitFor((m) => m.to.includes(email), 1);
            const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
            if (!code) throw new Error(`no code in the mail to ${email}`);
            await publicPost('/users/verify-otp', { email, code });
          }),
      },
      {
        work: 'newsletter subscription (`POST …/newsletter/subscribe`, double opt-in mail)',
        tables: ['newsletter_subscriptions', 'newsletter_memberships', 'email_messages'],
        async run() {
          await pool(UNITS, 8, (i) =>
            publicPost('/newsletter/subscribe', { email: `sub${i}@storage.example`, lists: [publicList.id] }),
          );
          await smtp.waitFor((m) => m.to[0].startsWith('sub'), UNITS);
        },
      },
      {
        work: 'webhook delivery (an `email.sent` event to a local receiver)',
        tables: ['webhook_deliveries', 'webhook_attempts'],
        only: true,
        async before() {
          await api('POST', `${v2}/webhooks`, { url: rx.url, eventTypes: ['email.sent'] });
        },
        async run() {
          await pool(UNITS, 8, (i) =>
            api('POST', `${v2}/email/send`, {
              to: [{ email: `hook${i}@storage.example` }],
              subject: 'Hi',
              text: 'Hi.',
            }),
          );
          await waitCount(
            url,
            `SELECT count(*)::int AS c FROM webhook_deliveries WHERE status = 'succeeded'`,
            [],
            UNITS,
            'deliveries',
          );
        },
      },
    ];

    const rows = [];
    for (const kind of kinds) {
      console.error(`${kind.work}: ${UNITS} units…`);
      if (kind.before) await kind.before();
      await settle(url);
      const names = (sz) => [...new Set([...kind.tables, ...Object.keys(sz)])].filter((t) => !t.includes('*'));
      const s0 = await vacuumedSizes(url, { full: true });
      const live0 = {};
      for (const t of names(s0)) live0[t] = await liveBytes(url, `"${t}" t`);
      await kind.run();
      await settle(url);
      const s1 = await vacuumedSizes(url);
      const grew = growth(s0, s1);
      const extra = kind.only
        ? []
        : Object.keys(grew).filter((t) => !kind.tables.includes(t) && grew[t].total >= 3 * 8192);
      for (const t of [...kind.tables, ...extra]) {
        const live = t.includes('*') ? null : (await liveBytes(url, `"${t}" t`)) - (live0[t] ?? 0);
        rows.push({
          work: kind.work,
          table: t,
          disk: (grew[t]?.total ?? 0) / UNITS,
          live: live === null ? null : live / UNITS,
        });
      }
    }

    let last = '';
    const lines = rows.map((r) => {
      const work = r.work === last ? '' : r.work;
      last = r.work;
      return `| ${work} | ${r.table} | **${fmt(r.disk)}** | ${r.live === null ? '—' : fmt(r.live)} |`;
    });
    const md = `## Storage per unit of work (issue 48)

Run: ${new Date().toISOString()}, Node ${process.version}, a fresh embedded PostgreSQL, ${fmt(UNITS)} units of each kind (BENCH_STORAGE_UNITS) through the HTTP API, one kind after the other on the same server. \`npm run bench:storage\`.

Bytes per unit: a table's growth on disk (heap, TOAST and indexes, read with the server idle after \`VACUUM (FULL)\`, \`VACUUM (ANALYZE)\` and \`CHECKPOINT\` before the units, so that earlier work leaves no free space to fill, and after \`VACUUM (ANALYZE)\` and \`CHECKPOINT\` once they are done) over the units: it includes the space of row versions that updates left and VACUUM freed for reuse, which a table in steady use fills again; \`pgboss.*\` is every table of pg-boss's schema. Live bytes: the growth of \`sum(pg_column_size(t.*))\` over the table, over the units (rows deleted by then, such as finished jobs, count negative). A table that gained one 8 KB page shows ${fmt(8192 / UNITS)} bytes per unit: below that, read live bytes. Under each kind, the tables it is expected to write, then any other that grew by three pages or more. The webhook endpoint (subscribed to \`email.sent\`) is made for the last kind only.

| work | table | bytes per unit | live bytes per unit |
|---|---|--:|--:|
${lines.join('\n')}`;
    console.log(`\n${md}`);
    writeSection('storage', md);
  } finally {
    if (server) await server.stop().catch(() => undefined);
    if (smtp) await smtp.close().catch(() => undefined);
    if (rx) await rx.close().catch(() => undefined);
    if (db) await db.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
