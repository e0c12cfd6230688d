'use strict';
// `npm run chaos` (issue 18): the server is killed with SIGKILL in the middle of four kinds of
// work, started again, and the work must complete with nothing lost:
//   1. a campaign send to CHAOS_RECIPIENTS subscribers into an SMTP sink (killed at a third);
//   2. a webhook backlog of CHAOS_EVENTS outbox events to a local receiver (killed at a third);
//   3. an import of CHAOS_IMPORT_ROWS CSV rows (killed at a third of the rows upserted);
//   4. CHAOS_SCHEDULED content items scheduled to publish a few seconds ahead (killed as they fall due).
// Each scenario checks its outcome in the database and at the peer, and counts what was repeated
// (mail and webhooks are delivered at least once: a kill between the peer's acceptance and the
// row's update repeats that one delivery; docs/email.md, docs/webhooks.md). Bounded (every wait
// has a deadline) and loopback only: an embedded PostgreSQL, the SMTP sink and the receiver run
// on 127.0.0.1. Writes the "chaos" section of docs/reliability.md.
const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
const http = require('node:http');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { SMTPServer } = require('smtp-server');
const { startServer, sleep, writeSection, apiClient, query, benchServerDb } = require('./lib');

const RECIPIENTS = Number(process.env.CHAOS_RECIPIENTS ?? 5000);
const EVENTS = Number(process.env.CHAOS_EVENTS ?? 3000);
const IMPORT_ROWS = Number(process.env.CHAOS_IMPORT_ROWS ?? 200_000);
const SCHEDULED = Number(process.env.CHAOS_SCHEDULED ?? 200);
const PORT = 3990;
const PG_PORT = 54399;
const KEY = 'sb_live_chaoschaoschaoschaoschaoschaos1234';
const base = `http://127.0.0.1:${PORT}`;
const headers = { 'x-api-key': KEY };
const DEADLINE_MS = 10 * 60_000;

const api = apiClient(base, headers);

/** Waits until `check()` answers truthy, polling; throws after the deadline with `what`. */
async function until(what, check, ms = DEADLINE_MS) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** An SMTP sink: copies per recipient address. */
function smtpSink() {
  const copies = new Map();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    maxClients: 100,
    onData(stream, session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        for (const r of session.envelope.rcptTo) copies.set(r.address, (copies.get(r.address) ?? 0) + 1);
        callback(null, 'OK');
      });
    },
  });
  // A killed server drops its connections mid-session: that is the test, not an error.
  server.on('error', () => undefined);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `smtp://127.0.0.1:${server.server.address().port}`,
        copies,
        received: () => [...copies.values()].reduce((a, b) => a + b, 0),
        close: () => new Promise((r) => server.close(r)),
      }),
    ),
  );
}

/** A webhook receiver: deliveries per webhook-id (an event's id across its attempts). */
function receiver() {
  const ids = new Map();
  const server = http.createServer((req, res) => {
    req.on('error', () => undefined);
    req.resume();
    req.on('end', () => {
      const id = req.headers['webhook-id'];
      if (id) ids.set(id, (ids.get(id) ?? 0) + 1);
      res.writeHead(200).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}/hook`,
        ids,
        received: () => [...ids.values()].reduce((a, b) => a + b, 0),
        close: () => new Promise((r) => server.close(r)),
      }),
    ),
  );
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sitebase-chaos-'));
  chmodSync(dataDir, 0o755);
  let server;
  let db;
  const smtp = await smtpSink();
  const rx = await receiver();
  const results = [];
  try {
    let env;
    ({ db, env } = await benchServerDb(dataDir, PG_PORT, {
      key: KEY,
      port: PORT,
      extra: {
        SMTP_URL: smtp.url,
        RATE_LIMIT_KEY_MAX: '0',
        WEBHOOKS_ALLOW_PRIVATE: 'true',
        WEBHOOKS_ALLOW_HTTP: 'true',
      },
    }));
    const start = () => startServer(env, { pin: false });
    let kills = 0;
    /** SIGKILL: no shutdown hook, no drain, no commit of what is in flight. */
    const crash = async () => {
      const exited = new Promise((r) => server.child.once('exit', r));
      server.child.kill('SIGKILL');
      await exited;
      kills += 1;
      server = await start();
    };
    server = await start();
    const [{ id: siteId, account_id: accountId }] = await query(
      db.url,
      `SELECT id, account_id FROM sites WHERE name = 'demo'`,
    );

    // 1. A campaign send.
    {
      console.error(`campaign to ${RECIPIENTS} subscribers…`);
      const list = await api('POST', '/api/v2/sites/demo/newsletter/lists', {
        name: 'Chaos readers',
        doubleOptIn: false,
      });
      await query(
        db.url,
        `INSERT INTO newsletter_subscriptions (site_id, email, name, source, manage_nonce, consent_at)
         SELECT $1, 'chaos' || g || '@chaos.example', 'Reader ' || g, 'import', md5(g::text), now()
           FROM generate_series(1, $2::int) g`,
        [siteId, RECIPIENTS],
      );
      await query(
        db.url,
        `INSERT INTO newsletter_memberships (subscription_id, list_id, site_id, status, subscribed_at)
         SELECT id, $2, $1, 'active', now() FROM newsletter_subscriptions WHERE site_id = $1 AND email LIKE 'chaos%'`,
        [siteId, list.id],
      );
      const campaign = await api('POST', '/api/v2/sites/demo/newsletter/campaigns', {
        name: 'Chaos campaign',
        subject: 'Hello {{ subscriber.name }}',
        contentHtml: '<p>Hello {{ subscriber.name }}, <a href="https://example.com/a">a link</a>.</p>',
        listIds: [list.id],
      });
      await api('PATCH', `/api/v2/sites/demo/newsletter/campaigns/${campaign.id}`, { status: 'scheduled' });
      await until('a third of the campaign', () => smtp.received() >= RECIPIENTS / 3);
      const atKill = smtp.received();
      await crash();
      await until('the whole campaign', async () => {
        const [c] = await query(db.url, 'SELECT status FROM newsletter_campaigns WHERE id = $1', [campaign.id]);
        return c.status === 'sent' && smtp.copies.size >= RECIPIENTS;
      });
      await sleep(2000); // a straggler copy would show now
      const [{ n: messages }] = await query(
        db.url,
        `SELECT count(*)::int AS n FROM email_messages WHERE tags @> ARRAY['newsletter-campaign:' || $1::text]`,
        [campaign.id],
      );
      const [{ n: recipients }] = await query(
        db.url,
        'SELECT count(*)::int AS n FROM newsletter_campaign_recipients WHERE campaign_id = $1',
        [campaign.id],
      );
      const repeated = [...smtp.copies.values()].filter((n) => n > 1).length;
      results.push({
        scenario: `campaign to ${RECIPIENTS.toLocaleString('en')} subscribers`,
        killed: `after ${atKill.toLocaleString('en')} copies received`,
        outcome: `campaign \`sent\`; ${smtp.copies.size.toLocaleString('en')} of ${RECIPIENTS.toLocaleString('en')} addresses received it; ${recipients.toLocaleString('en')} recipients rows and ${messages.toLocaleString('en')} messages (one per address)`,
        repeated: `${repeated} address(es) got a second copy (SMTP accepted, row not yet updated)`,
        ok: smtp.copies.size === RECIPIENTS && recipients === RECIPIENTS && messages === RECIPIENTS,
      });
    }

    // 2. A webhook backlog.
    {
      console.error(`webhook backlog of ${EVENTS} events…`);
      await api('POST', '/api/v2/sites/demo/webhooks', { url: rx.url, eventTypes: ['content.*'] });
      await query(
        db.url,
        `INSERT INTO outbox_events (account_id, site_id, name, payload)
         SELECT $1, $2, 'content.published',
                jsonb_build_object('id', i, 'type', 'post', 'slug', 'chaos-post-' || i, 'status', 'published', 'version', 1)
           FROM generate_series(1, $3::int) AS i ORDER BY i`,
        [accountId, siteId, EVENTS],
      );
      await until('a third of the webhooks', () => rx.ids.size >= EVENTS / 3);
      const atKill = rx.ids.size;
      await crash();
      await until('every webhook', () => rx.ids.size >= EVENTS);
      await sleep(2000);
      const [{ n: succeeded }] = await query(
        db.url,
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE site_id = $1 AND status = 'succeeded'`,
        [siteId],
      );
      const repeated = [...rx.ids.values()].filter((n) => n > 1).length;
      results.push({
        scenario: `webhook backlog of ${EVENTS.toLocaleString('en')} events`,
        killed: `after ${atKill.toLocaleString('en')} events received`,
        outcome: `${rx.ids.size.toLocaleString('en')} of ${EVENTS.toLocaleString('en')} events received; ${succeeded.toLocaleString('en')} deliveries stored as succeeded`,
        repeated: `${repeated} event(s) delivered twice under the same \`webhook-id\``,
        ok: rx.ids.size === EVENTS && succeeded === EVENTS,
      });
    }

    // 3. A large import.
    {
      console.error(`import of ${IMPORT_ROWS} rows…`);
      const list = await api('POST', '/api/v2/sites/demo/newsletter/lists', { name: 'Imported' });
      const lines = ['email,name'];
      for (let i = 0; i < IMPORT_ROWS; i++) lines.push(`imported${i}@chaos.example,Imported ${i}`);
      const form = new FormData();
      form.append('listIds', String(list.id));
      form.append('consent', 'true');
      form.append('file', new Blob([`${lines.join('\n')}\n`], { type: 'text/csv' }), 'chaos.csv');
      const res = await fetch(`${base}/api/v2/sites/demo/newsletter/subscriptions/import`, {
        method: 'POST',
        headers,
        body: form,
      });
      const imp = await res.json();
      if (res.status !== 202) throw new Error(`import: ${res.status} ${JSON.stringify(imp)}`);
      await until('a third of the import', async () => {
        const [r] = await query(db.url, 'SELECT rows_done FROM newsletter_imports WHERE id = $1', [imp.id]);
        return r.rows_done >= IMPORT_ROWS / 3;
      });
      const [{ rows_done: atKill }] = await query(db.url, 'SELECT rows_done FROM newsletter_imports WHERE id = $1', [
        imp.id,
      ]);
      await crash();
      const done = await until('the import', async () => {
        const r = await api('GET', `/api/v2/sites/demo/newsletter/imports/${imp.id}`);
        if (r.status === 'failed') throw new Error(`import failed: ${JSON.stringify(r)}`);
        return r.status === 'completed' ? r : null;
      });
      const [{ n: stored }] = await query(
        db.url,
        `SELECT count(*)::int AS n FROM newsletter_subscriptions s JOIN newsletter_memberships m
            ON m.subscription_id = s.id AND m.list_id = $2
          WHERE s.site_id = $1 AND s.email LIKE 'imported%@chaos.example' AND m.status = 'active'`,
        [siteId, list.id],
      );
      results.push({
        scenario: `import of ${IMPORT_ROWS.toLocaleString('en')} CSV rows`,
        killed: `after ${atKill.toLocaleString('en')} rows upserted`,
        outcome: `import \`completed\`: ${done.created.toLocaleString('en')} created, ${done.updated.toLocaleString('en')} updated, ${done.skipped} skipped; ${stored.toLocaleString('en')} active members of the list`,
        repeated: `rows done counted ${done.rowsDone.toLocaleString('en')} for ${IMPORT_ROWS.toLocaleString('en')} rows (a chunk is counted in the transaction that upserts it)`,
        ok:
          stored === IMPORT_ROWS &&
          done.created + done.updated + done.skipped === IMPORT_ROWS &&
          done.rowsDone === IMPORT_ROWS,
      });
    }

    // 4. Scheduled publishing.
    {
      console.error(`${SCHEDULED} scheduled items…`);
      const publishAt = new Date(Date.now() + 8000).toISOString();
      const ids = [];
      for (let i = 0; i < SCHEDULED; i++) {
        const item = await api('POST', '/api/v2/sites/demo/content', {
          type: 'post',
          title: `Scheduled ${i}`,
          slug: `chaos-scheduled-${i}`,
          status: 'scheduled',
          publishAt,
        });
        ids.push(item.id);
      }
      await until('the publish time', async () => Date.now() >= Date.parse(publishAt), 60_000);
      const [{ n: atKill }] = await query(
        db.url,
        `SELECT count(*)::int AS n FROM content_items WHERE id = ANY($1) AND status = 'published'`,
        [ids],
      );
      await crash();
      await until('every scheduled item', async () => {
        const [{ n }] = await query(
          db.url,
          `SELECT count(*)::int AS n FROM content_items WHERE id = ANY($1) AND status = 'published'`,
          [ids],
        );
        return n === SCHEDULED;
      });
      await sleep(3000);
      const [{ n: events, distinct }] = await query(
        db.url,
        `SELECT count(*)::int AS n, count(DISTINCT payload->>'id')::int AS distinct FROM outbox_events
          WHERE name = 'content.published' AND site_id = $2 AND (payload->>'id')::bigint = ANY($1)
            AND payload->>'slug' LIKE 'chaos-scheduled-%'`,
        [ids, siteId],
      );
      results.push({
        scenario: `${SCHEDULED} items scheduled for one instant`,
        killed: `as they fell due (${atKill} published by then)`,
        outcome: `${SCHEDULED} of ${SCHEDULED} published; ${events} \`content.published\` events for ${distinct} items`,
        repeated: `${events - distinct} item(s) published twice`,
        ok: distinct === SCHEDULED && events === SCHEDULED,
      });
    }

    await server.stop();
    server = undefined;
    const table = results
      .map((r) => `| ${r.scenario} | ${r.killed} | ${r.outcome} | ${r.repeated} | ${r.ok ? 'yes' : '**NO**'} |`)
      .join('\n');
    const md = `## Crashes (\`npm run chaos\`)

Run: ${new Date().toISOString()}, Node ${process.version}. One server (\`node dist/src/main.js\`) on an embedded PostgreSQL, with an SMTP sink and a webhook receiver in the script's process, all on 127.0.0.1. In each scenario the server is killed with SIGKILL (no shutdown hook runs; what is in flight is lost) once the work is a third done, started again (${kills} kills in all), and the script waits (at most ${DEADLINE_MS / 60_000} minutes a scenario) for the work to complete, then checks the database and the peer.

| scenario | killed | outcome | repeated | nothing lost |
|---|---|---|---|---|
${table}

Mail and webhooks are delivered at least once (docs/email.md, docs/webhooks.md): a copy the peer accepted just before the kill, whose row did not yet say so, is sent again on restart; the campaign layer itself records each recipient once, so no address is ever given two messages. Receivers de-duplicate webhooks by \`webhook-id\`.`;
    writeSection('chaos', md, 'docs/reliability.md', '# Reliability\n');
    console.log(md);
    if (results.some((r) => !r.ok)) process.exitCode = 1;
  } finally {
    if (server) await server.stop().catch(() => undefined);
    await smtp.close().catch(() => undefined);
    await rx.close().catch(() => undefined);
    if (db) await db.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
