'use strict';
// Webhooks benchmark (issue 12): `npm run bench:webhooks` (BENCH_QUICK=1 or --quick: a short run).
//
//  1. Delivery rate. The built server (pinned to core 1 with its embedded PostgreSQL, as
//     docs/performance.md says) delivers to a receiver in this process (node:http, keep-alive,
//     core 0) that answers 200 at once, verifies every signature with `standardwebhooks` and
//     records every `webhook-id`. Endpoints are created through the API. Events are
//     `content.published` outbox rows with the real payload shape, inserted with one SQL
//     statement for site `demo`: the load generator is not the bottleneck, no request handling
//     shares the server's core, and what is measured starts at the outbox.
//     Rows: 1 endpoint, then 10 endpoints, the same number of deliveries each. Measured: the
//     deliveries/s from the first received to the last, and from the insert to the last.
//  2. Outage recovery. The server restarted with a scaled-down retry schedule; events keep
//     coming at a steady rate while the receiver is closed (connections refused) for a bounded
//     time, then listens again; in the full run a second row has it answer 503 instead
//     (BENCH_OUTAGE_MODES=refused,503 chooses). Asserted: every event arrives at every
//     endpoint, none twice under different webhook-ids (a repeat with the same id is allowed,
//     at least once, and counted); reported: how long the backlog took to drain after
//     recovery, and the order.
//
// A row is invalid on any non-2xx answer of the API, a signature that does not verify, a
// missing delivery, an event received under two webhook-ids, a request the receiver did not
// expect, or a delivery the database does not record as succeeded.
//
// BENCH_ONLY=rate: the rate rows only, printed (no section written), for comparing changes.
// BENCH_EXPLAIN=1: after the rate rows, EXPLAIN (ANALYZE, BUFFERS) of the fan-out and drain
// statements (the repository's own SQL and pg-boss's job insert), in a rolled-back transaction.
// BENCH_PROFILE=dir: CPU profiles of the servers (node --cpu-prof). BENCH_SQL_TIMING=1: the
// time the server waits for each statement, summed per statement (bench/time-sql.js), printed.
// Writes the webhooks section of docs/benchmarks.md.
const { chmodSync, mkdtempSync, readFileSync, rmSync } = require('node:fs');
const http = require('node:http');
const { cpus, loadavg, tmpdir } = require('node:os');
const { join } = require('node:path');
const { Client } = require('pg');
const { Webhook } = require('standardwebhooks');
const { startServer, writeSection, PIN, sleep, summarize, cpuSample, cpuUse, postmasterOf } = require('./lib');
const { startDatabase } = require('./fixture');

const QUICK = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');
const PORT = 3950;
const PG_PORT = 54395;
const KEY = 'sb_live_webhooksbenchwebhooksbenchwebhooks1234';
const TARGET = 500;
/** Deliveries per rate row (events = deliveries / endpoints). */
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? (QUICK ? 4000 : 20000));
const ENDPOINT_ROWS = [1, 10];
const WARMUP_EVENTS = QUICK ? 300 : 1000;
/**
 * The outage: events a second, seconds up before, seconds down, seconds up after, endpoints;
 * and how the receiver is down, one row each: `refused` (it stops listening and drops its
 * connections: a server that is down) and, in the full run, `503` (it answers 503 to all).
 */
const OUTAGE = {
  rate: Number(process.env.BENCH_OUTAGE_RATE ?? 50),
  before: QUICK ? 4 : 10,
  down: Number(process.env.BENCH_OUTAGE_SECONDS ?? (QUICK ? 8 : 15)),
  after: QUICK ? 4 : 10,
  endpoints: 10,
  modes: (process.env.BENCH_OUTAGE_MODES ?? (QUICK ? 'refused' : 'refused,503')).split(','),
};
/**
 * 63 s of retries: the outage plus the endpoint's next probe (up to 1.2 x 16 s after the 15 s
 * one) must fit in a delivery's retry window (the schedule's sum + 1 s), or events that waited
 * since the outage began are given up before the endpoint is tried again.
 */
const OUTAGE_SCHEDULE = process.env.BENCH_RETRY_SCHEDULE ?? '1,2,4,8,16,32';
/** No progress for this long: the run is stuck, and its missing deliveries are reported. */
const STALL_MS = 90_000;

// ---------------------------------------------------------------------------------------------
// The receiver

function receiver() {
  let server;
  let port = 0;
  let mode = 'up';
  let state;
  const reset = (endpoints) => {
    state = {
      endpoints: new Map(
        endpoints.map((e) => [
          e.path,
          { id: e.id, webhook: new Webhook(e.secret), ids: new Map(), order: [], received: 0 },
        ]),
      ),
      /** webhook-id -> `path event` it carried: one id must always be the same event. */
      byWebhookId: new Map(),
      requests: 0,
      deliveries: 0,
      refusedWhileDown: 0,
      verified: 0,
      badSignatures: 0,
      unexpected: 0,
      sameIdRepeats: 0,
      differentIdRepeats: 0,
      idConflicts: 0,
      firstAt: [],
      lastAt: 0,
    };
  };
  reset([]);
  const handle = (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const now = performance.now();
      state.requests += 1;
      const ep = state.endpoints.get(req.url);
      if (!ep || req.method !== 'POST') {
        state.unexpected += 1;
        res.writeHead(404).end();
        return;
      }
      if (mode === '503') {
        state.refusedWhileDown += 1;
        res.writeHead(503, { 'content-length': '4' }).end('down');
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      let event;
      try {
        event = ep.webhook.verify(body, req.headers);
        state.verified += 1;
      } catch {
        state.badSignatures += 1;
        res.writeHead(400).end();
        return;
      }
      const webhookId = req.headers['webhook-id'];
      const eventId = event.data.id;
      const key = `${req.url} ${eventId}`;
      const known = state.byWebhookId.get(webhookId);
      if (known !== undefined && known !== key) state.idConflicts += 1;
      state.byWebhookId.set(webhookId, key);
      const ids = ep.ids.get(eventId);
      if (!ids) {
        ep.ids.set(eventId, new Set([webhookId]));
        ep.order.push(eventId);
        ep.received += 1;
        state.deliveries += 1;
        state.firstAt.push({ at: now, eventId });
      } else if (ids.has(webhookId)) {
        state.sameIdRepeats += 1;
      } else {
        ids.add(webhookId);
        state.differentIdRepeats += 1;
      }
      state.lastAt = now;
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' }).end('ok');
    });
  };
  const listen = () =>
    new Promise((resolve, reject) => {
      server = http.createServer({ keepAliveTimeout: 30_000 }, handle);
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = server.address().port;
        resolve();
      });
    });
  return {
    listen,
    reset,
    get state() {
      return state;
    },
    url: (path) => `http://127.0.0.1:${port}${path}`,
    /** The outage: stop listening and drop every connection (refused), or answer 503. */
    async down(how) {
      if (how === '503') {
        mode = '503';
        return;
      }
      const closed = new Promise((r) => server.close(r));
      server.closeAllConnections();
      await closed;
    },
    async up(how) {
      if (how === '503') mode = 'up';
      else await listen();
    },
    close: async () => {
      const closed = new Promise((r) => server.close(r));
      server.closeAllConnections();
      await closed;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers

async function withDb(url, fn) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

let nextEventId = 1;
/** `n` content.published events in one statement; answers the outbox id range and when it committed. */
async function insertEvents(db, site, n) {
  const first = nextEventId;
  nextEventId += n;
  const { rows } = await db.query(
    `WITH ins AS (
       INSERT INTO outbox_events (account_id, site_id, name, payload)
       SELECT $1, $2, 'content.published',
              jsonb_build_object('id', i, 'type', 'post', 'slug', 'bench-post-' || i, 'status', 'published', 'version', 1)
         FROM generate_series($3::int, $4::int) AS i ORDER BY i
       RETURNING id)
     SELECT min(id)::text AS lo, max(id)::text AS hi FROM ins`,
    [site.accountId, site.id, first, first + n - 1],
  );
  return { lo: Number(rows[0].lo), hi: Number(rows[0].hi), first, last: first + n - 1, at: performance.now() };
}

/** performance.now() + EPOCH = Date.now(): to compare the database's timestamps with this process's. */
const EPOCH = Date.now() - performance.now();

/** Waits until the receiver has `expected` distinct deliveries; fails on a stall. */
async function waitForDeliveries(rx, expected) {
  let last = -1;
  let lastChange = performance.now();
  while (rx.state.deliveries < expected) {
    if (rx.state.deliveries !== last) {
      last = rx.state.deliveries;
      lastChange = performance.now();
    } else if (performance.now() - lastChange > STALL_MS) {
      return false;
    }
    await sleep(20);
  }
  return true;
}

/** Waits until the database has settled the deliveries of outbox events lo..hi; answers the counts. */
async function settled(db, lo, hi) {
  const deadline = performance.now() + 60_000;
  for (;;) {
    const { rows } = await db.query(
      `SELECT status, count(*)::int AS n, sum(attempts)::int AS attempts FROM webhook_deliveries
        WHERE event_id BETWEEN $1 AND $2 GROUP BY status`,
      [lo, hi],
    );
    const by = Object.fromEntries(rows.map((r) => [r.status, r]));
    if (!by.pending || performance.now() > deadline) {
      const outbox = (
        await db.query(
          `SELECT count(*) FILTER (WHERE dispatched_at IS NULL)::int AS undispatched,
                  count(*) FILTER (WHERE attempts > 0)::int AS retried,
                  (extract(epoch FROM max(dispatched_at)) * 1000)::float8 AS "lastDispatchedAt"
             FROM outbox_events WHERE id BETWEEN $1 AND $2`,
          [lo, hi],
        )
      ).rows[0];
      return {
        succeeded: by.succeeded?.n ?? 0,
        pending: by.pending?.n ?? 0,
        failed: by.failed?.n ?? 0,
        attempts: rows.reduce((a, r) => a + r.attempts, 0),
        ...outbox,
      };
    }
    await sleep(100);
  }
}

/** What the receiver saw against what it should have: the reasons a row is invalid. */
function audit(rx, firstEvent, lastEvent, db) {
  const s = rx.state;
  const problems = [];
  let missing = 0;
  let inOrder = 0;
  let total = 0;
  for (const ep of s.endpoints.values()) {
    for (let id = firstEvent; id <= lastEvent; id++) if (!ep.ids.has(id)) missing += 1;
    let max = -Infinity;
    for (const id of ep.order) {
      total += 1;
      if (id > max) {
        inOrder += 1;
        max = id;
      }
    }
  }
  const expected = (lastEvent - firstEvent + 1) * s.endpoints.size;
  if (missing) problems.push(`${missing} of ${expected} deliveries missing`);
  if (s.deliveries !== expected) problems.push(`${s.deliveries} distinct deliveries for ${expected} expected`);
  if (s.badSignatures) problems.push(`${s.badSignatures} signatures did not verify`);
  if (s.unexpected) problems.push(`${s.unexpected} unexpected requests`);
  if (s.differentIdRepeats) problems.push(`${s.differentIdRepeats} events received under a second webhook-id`);
  if (s.idConflicts) problems.push(`${s.idConflicts} webhook-ids reused for another event`);
  if (db.succeeded !== expected) problems.push(`database: ${db.succeeded} succeeded of ${expected}`);
  if (db.failed) problems.push(`database: ${db.failed} deliveries given up`);
  if (db.undispatched) problems.push(`database: ${db.undispatched} outbox events not dispatched`);
  return { problems, missing, expected, inOrder: total ? inOrder / total : 1, outOfOrder: total - inOrder };
}

async function createEndpoints(rx, count, from) {
  const made = [];
  for (let i = from; i < from + count; i++) {
    const path = `/hooks/${i}`;
    const res = await fetch(`http://127.0.0.1:${PORT}/api/v2/sites/demo/webhooks`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ url: rx.url(path), eventTypes: ['content.*'], description: `bench receiver ${i}` }),
    });
    const body = await res.json();
    if (res.status !== 201) throw new Error(`creating an endpoint: ${res.status} ${JSON.stringify(body)}`);
    made.push({ id: body.id, secret: body.secret, path });
  }
  return made;
}

const profileArgs = (name) => {
  const args = [];
  if (process.env.BENCH_PROFILE)
    args.push(
      '--cpu-prof',
      `--cpu-prof-dir=${process.env.BENCH_PROFILE}`,
      `--cpu-prof-name=webhooks-${name}.cpuprofile`,
    );
  if (process.env.BENCH_SQL_TIMING) args.push('--require', join(__dirname, 'time-sql.js'));
  return args;
};

async function start(env, name, dataDir) {
  const timing = join(dataDir, `sql-${name}.json`);
  const server = await startServer(
    { ...env, SQL_TIMING_FILE: process.env.BENCH_SQL_TIMING ? timing : '' },
    { nodeArgs: profileArgs(name) },
  );
  return {
    ...server,
    stop: async () => {
      await server.stop();
      if (process.env.BENCH_SQL_TIMING) printTiming(name, timing);
    },
  };
}

function printTiming(name, file) {
  let stats;
  try {
    stats = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return;
  }
  const total = stats.reduce((a, s) => a + s.ms, 0);
  console.error(`\nstatements of the ${name} server, by time waited (${(total / 1000).toFixed(1)} s in all):`);
  for (const s of stats.slice(0, 20))
    console.error(
      `  ${((s.ms / total) * 100).toFixed(1).padStart(5)} %  ${String(s.calls).padStart(7)} calls  ${(s.ms / s.calls).toFixed(3).padStart(7)} ms  ${s.text.replace(/\s+/g, ' ').slice(0, 150)}`,
    );
}

// ---------------------------------------------------------------------------------------------
// The rows

/** Inserts events for `endpoints` until `deliveries` are due; measures until the last arrives. */
async function rateRow(ctx, endpoints, deliveries) {
  const { rx, db, site, server } = ctx;
  const events = Math.ceil(deliveries / endpoints.length);
  rx.reset(endpoints);
  const before = cpuSample(server.child.pid, ctx.postmaster);
  const started = performance.now();
  const ins = await insertEvents(db, site, events);
  const complete = await waitForDeliveries(rx, events * endpoints.length);
  const after = cpuSample(server.child.pid, ctx.postmaster);
  const s = rx.state;
  const dbState = await settled(db, ins.lo, ins.hi);
  const a = audit(rx, ins.first, ins.last, dbState);
  if (!complete) a.problems.unshift(`stalled: no delivery for ${STALL_MS / 1000} s`);
  const first = s.firstAt[0]?.at ?? NaN;
  const n = s.deliveries;
  // The relay's last batch began then (dispatched_at is its transaction's start): fan-out's pace.
  const relaySeconds = (dbState.lastDispatchedAt - EPOCH - ins.at) / 1000;
  return {
    relaySeconds,
    relayRate: events / relaySeconds,
    endpoints: endpoints.length,
    events,
    deliveries: n,
    insertMs: ins.at - started,
    toFirstMs: first - ins.at,
    steady: (n - 1) / ((s.lastAt - first) / 1000),
    endToEnd: n / ((s.lastAt - started) / 1000),
    seconds: (s.lastAt - started) / 1000,
    cpu: cpuUse(before, after),
    sameIdRepeats: s.sameIdRepeats,
    attempts: dbState.attempts,
    retriedEvents: dbState.retried,
    ...a,
  };
}

async function outageRow(ctx, endpoints, mode) {
  const { rx, db, site } = ctx;
  rx.reset(endpoints);
  const o = { ...OUTAGE, mode };
  const perTick = o.rate / 10;
  const inserted = [];
  const started = performance.now();
  let downAt = NaN;
  let upAt = NaN;
  let lastBeforeUp = 0;
  const total = (o.before + o.down + o.after) * 10;
  for (let tick = 0; tick < total; tick++) {
    const due = started + tick * 100;
    if (tick === o.before * 10) {
      await rx.down(o.mode);
      downAt = performance.now();
      console.error(`  receiver down (${o.mode}) at ${((downAt - started) / 1000).toFixed(1)} s`);
    }
    if (tick === (o.before + o.down) * 10) {
      lastBeforeUp = nextEventId - 1;
      await rx.up(o.mode);
      upAt = performance.now();
      console.error(`  receiver up at ${((upAt - started) / 1000).toFixed(1)} s`);
    }
    await sleep(Math.max(0, due - performance.now()));
    inserted.push(await insertEvents(db, site, perTick));
  }
  const firstEvent = inserted[0].first;
  const lastEvent = inserted[inserted.length - 1].last;
  const producedAt = performance.now();
  const complete = await waitForDeliveries(rx, (lastEvent - firstEvent + 1) * endpoints.length);
  const s = rx.state;
  const dbState = await settled(db, inserted[0].lo, inserted[inserted.length - 1].hi);
  const { rows } = await db.query(
    `SELECT a.error_kind AS kind, count(*)::int AS n FROM webhook_attempts a
       JOIN webhook_deliveries d ON d.id = a.delivery_id
      WHERE d.event_id BETWEEN $1 AND $2 AND a.error_kind IS NOT NULL GROUP BY a.error_kind`,
    [inserted[0].lo, inserted[inserted.length - 1].hi],
  );
  const a = audit(rx, firstEvent, lastEvent, dbState);
  if (!complete) a.problems.unshift(`stalled: no delivery for ${STALL_MS / 1000} s`);
  const afterUp = s.firstAt.filter((f) => f.at >= upAt);
  const backlog = s.firstAt.filter((f) => f.eventId <= lastBeforeUp);
  const duringDown = s.firstAt.filter((f) => f.at >= downAt && f.at < upAt).length;
  return {
    mode,
    endpoints: endpoints.length,
    events: lastEvent - firstEvent + 1,
    eventsBeforeUp: lastBeforeUp - firstEvent + 1,
    requests: s.requests,
    deliveries: s.deliveries,
    uniqueWebhookIds: s.byWebhookId.size,
    sameIdRepeats: s.sameIdRepeats,
    differentIdRepeats: s.differentIdRepeats,
    answered503: s.refusedWhileDown,
    duringDown,
    producedSeconds: (producedAt - started) / 1000,
    downSeconds: (upAt - downAt) / 1000,
    firstAfterUpS: afterUp.length ? (Math.min(...afterUp.map((f) => f.at)) - upAt) / 1000 : NaN,
    backlogDrainedS: (Math.max(...backlog.map((f) => f.at)) - upAt) / 1000,
    allDeliveredS: (s.lastAt - upAt) / 1000,
    failedAttempts: Object.fromEntries(rows.map((r) => [r.kind, r.n])),
    attempts: dbState.attempts,
    ...a,
  };
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of what one relay batch and one drain batch send, with the server
 * stopped: the statements come from the built repository (a stand-in EntityManager prefixes
 * them) and from pg-boss, on 200 fresh outbox events, in a transaction that is rolled back.
 */
async function explain(db, site, endpoints) {
  const { ROOT } = require('./lib');
  const { WebhooksRepository } = require(join(ROOT, 'dist/src/webhooks/webhooks.repository'));
  const plans = require(join(ROOT, 'node_modules/pg-boss/dist/plans.js'));
  const repo = new WebhooksRepository(null, null, null);
  const out = [];
  let label = '';
  const em = {
    queryRunner: {
      query: async (text, params) => {
        const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params);
        const lines = rows.map((r) => r['QUERY PLAN']);
        const time = (re) => Number(lines.find((l) => re.test(l))?.replace(/.*: ([\d.]+) ms.*/, '$1') ?? NaN);
        out.push({ label, planning: time(/^Planning Time/), execution: time(/^Execution Time/), lines });
        return { records: [], affected: 0 };
      },
    },
  };
  const run = async (name, fn) => {
    label = name;
    await fn();
  };
  await db.query('BEGIN');
  try {
    const ins = await insertEvents(db, site, 200);
    await run('relay: claim 200 events (FOR UPDATE SKIP LOCKED)', () =>
      em.queryRunner.query(
        `SELECT e.* FROM outbox_events e WHERE e.dispatched_at IS NULL AND e.parked_at IS NULL
           AND (e.next_attempt_at IS NULL OR e.next_attempt_at <= now()) ORDER BY e.id ASC LIMIT 200
           FOR UPDATE SKIP LOCKED`,
        [],
      ),
    );
    await run("fan-out: the site's enabled endpoints", () => repo.enabledEndpoints(em, site.id, site.accountId));
    const body = JSON.stringify({ type: 'content.published', timestamp: new Date().toISOString(), data: { id: 1 } });
    await run('fan-out: insert the deliveries of an event, 1 endpoint', () =>
      repo.insertDeliveries(
        em,
        endpoints.slice(0, 1).map((e) => ({ id: e.id, siteId: site.id })),
        { id: ins.lo, name: 'content.published' },
        body,
        86400,
      ),
    );
    await run('fan-out: insert the deliveries of an event, 10 endpoints', () =>
      repo.insertDeliveries(
        em,
        endpoints.slice(0, 10).map((e) => ({ id: e.id, siteId: site.id })),
        { id: ins.lo + 1, name: 'content.published' },
        body,
        86400,
      ),
    );
    // The deliveries of the other 198 events, for the drain's statements to find (due a second
    // ago: next_attempt_at is stored to the millisecond, and this transaction's now() may round up).
    for (const e of endpoints.slice(0, 1))
      await db.query(
        `INSERT INTO webhook_deliveries (site_id, endpoint_id, event_id, event_type, payload, status, next_attempt_at, expires_at)
         SELECT $1, $2, id, name, $3, 'pending', now() - interval '1 second', now() + interval '1 day'
           FROM outbox_events WHERE id BETWEEN $4 AND $5`,
        [site.id, e.id, body, ins.lo + 2, ins.hi],
      );
    // pg-boss's insert as QueueService.send makes it (pg-boss 12's createJob: one job as JSON,
    // into the queue's table).
    const { rows: queues } = await db.query("SELECT table_name FROM pgboss.queue WHERE name = 'webhooks.deliver'");
    const insertJob = plans.insertJobs('pgboss', {
      table: queues[0].table_name,
      name: 'webhooks.deliver',
      returnId: true,
    });
    const job = (key) => [JSON.stringify([{ data: { endpointId: Number(key) }, singletonKey: key }])];
    await run('fan-out: pg-boss send of a drain job, none waiting (inserted)', () =>
      em.queryRunner.query(insertJob, job('999999')),
    );
    await db.query(insertJob, job('999998'));
    await run('fan-out: pg-boss send of a drain job, one waiting (ON CONFLICT DO NOTHING)', () =>
      em.queryRunner.query(insertJob, job('999998')),
    );
    const id = endpoints[0].id;
    await run('drain: give up expired deliveries', () => repo.expire(em, id));
    await run('drain: the 100 due deliveries', () => repo.dueDeliveries(em, id, 100));
    const due = (
      await db.query(
        "SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending' ORDER BY id LIMIT 100",
        [id],
      )
    ).rows.map((r) => Number(r.id));
    const now = new Date();
    const outcomes = due.map((deliveryId) => ({
      deliveryId,
      attemptedAt: now,
      status: 'succeeded',
      attempts: 1,
      nextAttemptAt: null,
      result: { ok: true, statusCode: 200, durationMs: 1, responseExcerpt: 'ok', errorKind: null, error: null },
    }));
    await run('drain: record 100 outcomes (attempts insert + deliveries update)', () =>
      repo.recordOutcomes(em, outcomes),
    );
  } finally {
    await db.query('ROLLBACK');
  }
  console.error('\nEXPLAIN (ANALYZE, BUFFERS), in a rolled-back transaction:');
  for (const o of out) {
    console.error(`\n- ${o.label}: planning ${o.planning} ms, execution ${o.execution} ms`);
    for (const l of o.lines) console.error(`    ${l}`);
  }
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sitebase-bench-webhooks-'));
  chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as its own user and must reach the folder
  const load = loadavg().map((x) => x.toFixed(2));
  let pg;
  let server;
  let db;
  const rx = receiver();
  try {
    pg = await startDatabase(join(dataDir, 'pg'), PG_PORT);
    await rx.listen();
    const env = {
      DATABASE_URL: pg.url,
      PORT: String(PORT),
      BOOTSTRAP_API_KEY: KEY,
      BOOTSTRAP_SITE: 'demo',
      PUBLIC_BASE_URL: `http://127.0.0.1:${PORT}`,
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      WEBHOOKS_ALLOW_HTTP: 'true',
    };
    server = await start(env, 'rate', dataDir);
    db = new Client({ connectionString: pg.url });
    await db.connect();
    const [site] = (await db.query('SELECT id::int, account_id::int AS "accountId" FROM sites WHERE name = \'demo\''))
      .rows;
    const postmaster = postmasterOf(join(dataDir, 'pg'));
    const ctx = { rx, db, site, server, postmaster };

    // 1. Delivery rate: a warm-up, then each row.
    const endpoints = await createEndpoints(rx, 1, 1);
    console.error(`warm-up: ${WARMUP_EVENTS} events to 1 endpoint`);
    const warm = await rateRow(ctx, endpoints, WARMUP_EVENTS);
    if (warm.problems.length) throw new Error(`warm-up: ${warm.problems.join('; ')}`);
    const rows = [];
    for (const count of ENDPOINT_ROWS) {
      if (count > endpoints.length)
        endpoints.push(...(await createEndpoints(rx, count - endpoints.length, endpoints.length + 1)));
      console.error(`rate: ${DELIVERIES} deliveries to ${count} endpoint(s)`);
      const row = await rateRow(ctx, endpoints.slice(0, count), DELIVERIES);
      console.error(
        `  ${row.steady.toFixed(0)}/s first to last, ${row.endToEnd.toFixed(0)}/s from the insert; relay's last batch began after ${row.relaySeconds.toFixed(1)} s (${row.relayRate.toFixed(0)} events/s); CPU a delivery: server ${((row.cpu.server / row.deliveries) * 1e6).toFixed(0)} µs, PostgreSQL ${((row.cpu.pg / row.deliveries) * 1e6).toFixed(0)} µs; ${row.problems.join('; ') || 'valid'}`,
      );
      rows.push(row);
    }
    await server.stop();
    server = undefined;
    if (process.env.BENCH_EXPLAIN) await explain(db, site, endpoints);
    if (process.env.BENCH_ONLY === 'rate') return;

    // 2. Outage recovery.
    const outageEnv = {
      ...env,
      WEBHOOK_RETRY_SCHEDULE: OUTAGE_SCHEDULE,
      WEBHOOK_DISABLE_AFTER_SECONDS: '86400',
    };
    server = await start(outageEnv, 'outage', dataDir);
    ctx.server = server;
    const outages = [];
    for (const mode of OUTAGE.modes) {
      console.error(
        `outage: ${OUTAGE.rate} events/s to ${OUTAGE.endpoints} endpoints, ${OUTAGE.before} s up, ${OUTAGE.down} s down (${mode}), ${OUTAGE.after} s up`,
      );
      const outage = await outageRow(ctx, endpoints.slice(0, OUTAGE.endpoints), mode);
      console.error(`  ${JSON.stringify(outage)}`);
      outages.push(outage);
    }
    await server.stop();
    server = undefined;

    const md = report({ rows, outages, load, pinned: pg.pinned });
    summarize(
      `Webhooks ≥ ${TARGET} deliveries/s, nothing lost`,
      [...rows, ...outages].every((r) => !r.problems.length) && rows.every((r) => r.steady >= TARGET),
      rows.map((r) => `${Math.round(r.steady)}/s to ${r.endpoints} endpoint${r.endpoints > 1 ? 's' : ''}`).join(', '),
    );
    writeSection('webhooks', md);
    console.log(md);
    if ([...rows, ...outages].some((r) => r.problems.length)) process.exitCode = 1;
  } finally {
    await server?.stop().catch(() => undefined);
    await db?.end().catch(() => undefined);
    await rx.close().catch(() => undefined);
    await pg?.stop().catch((err) => console.error('could not stop the bench database', err.message));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const fmt = (n) => Math.round(n).toLocaleString('en');
const pct = (x) => `${(x * 100).toFixed(0)} %`;

function outageLines(outages) {
  const line = (name, f) => `| ${name} | ${outages.map(f).join(' | ')} |`;
  return [
    line(
      'events sent',
      (x) =>
        `${fmt(x.events)} (${fmt(x.eventsBeforeUp)} before the receiver came back) × ${x.endpoints} endpoints = ${fmt(x.expected)} deliveries`,
    ),
    line(
      'received',
      (x) =>
        `${fmt(x.requests)} requests${x.mode === '503' ? ` (${fmt(x.answered503)} answered 503)` : ''}; **${fmt(x.deliveries)} distinct deliveries** (${fmt(x.duringDown)} while down), ${fmt(x.uniqueWebhookIds)} webhook-ids; **${fmt(x.missing)} missing**`,
    ),
    line(
      'duplicates',
      (x) =>
        `${fmt(x.sameIdRepeats)} repeats with the same webhook-id (at least once); **${fmt(x.differentIdRepeats)} under another webhook-id**`,
    ),
    line(
      'failed attempts (server log)',
      (x) =>
        `${
          Object.entries(x.failedAttempts)
            .map(([k, n]) => `${fmt(n)} ${k}`)
            .join(', ') || 'none'
        } (${fmt(x.attempts)} attempts in all)`,
    ),
    line('first delivery after recovery', (x) => `${x.firstAfterUpS.toFixed(1)} s`),
    line(
      'backlog drained (events sent before recovery)',
      (x) => `**${x.backlogDrainedS.toFixed(1)} s** after recovery`,
    ),
    line('everything delivered', (x) => `${x.allDeliveredS.toFixed(1)} s after recovery`),
    line(
      'order',
      (x) =>
        `${(x.inOrder * 100).toFixed(2)} % arrived after every earlier event of their endpoint (${fmt(x.outOfOrder)} overtaken)`,
    ),
    line('verdict', (x) =>
      x.problems.length
        ? `**invalid**: ${x.problems.join('; ')}`
        : 'every event arrived, none lost, none under two ids',
    ),
  ].join('\n');
}

function report({ rows, outages, load, pinned }) {
  const o = OUTAGE;
  const rateLine = (r) => {
    if (r.problems.length)
      return `| ${r.endpoints} | ${fmt(r.events)} | ${fmt(r.deliveries)} | **invalid**: ${r.problems.join('; ')} | | | | | |`;
    const us = (seconds) => fmt((seconds / r.deliveries) * 1e6);
    return `| ${r.endpoints} | ${fmt(r.events)} | ${fmt(r.deliveries)} | **${fmt(r.steady)}** | ${fmt(r.endToEnd)} (${r.seconds.toFixed(1)} s; first after ${fmt(r.toFirstMs)} ms) | ${fmt(r.relayRate)} events/s | ${us(r.cpu.server)} + ${us(r.cpu.pg)} µs | ${pct(r.cpu.cores[1])} / ${pct(r.cpu.cores[0])} | ${fmt(r.attempts)} / ${r.sameIdRepeats} |`;
  };
  const valid = rows.every((r) => !r.problems.length);
  const met = valid && rows.every((r) => r.steady >= TARGET);
  return `## Webhooks (issue 12)

Run: ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} cores (load average before the run ${load.join(', ')}); ${PIN ? `the server **and its embedded PostgreSQL** pinned to core 1 (${pinned ? 'postmaster and every backend' : 'server only'}), this script (event inserts and the receiver) on core 0` : 'not pinned (taskset missing or one core): figures are indicative only'}. \`npm run bench:webhooks\`${QUICK ? ' in quick mode (`BENCH_QUICK=1`): shorter rows, figures indicative' : ''}.

Server settings: \`WEBHOOKS_ALLOW_PRIVATE=true WEBHOOKS_ALLOW_HTTP=true\`, everything else default (\`WEBHOOK_CONCURRENCY=8\`, \`OUTBOX_POLL_MS=1000\`, \`JOBS_POLL_SECONDS=2\`, \`LOG_LEVEL=warn\`). Receiver: \`node:http\` in the bench process, keep-alive, answers 200 at once, verifies **every** signature with \`standardwebhooks\` and records every \`webhook-id\`; one path per endpoint, each subscribed to \`content.*\`, created with \`POST /api/v2/sites/demo/webhooks\` (201 each). Events: \`content.published\` outbox rows with the real payload (\`{ id, type, slug, status, version }\`) for site \`demo\`, inserted by **one SQL statement** per row (not through the API: the figures start at the outbox, and no request handling shares the server's core). A row is invalid with any non-2xx API answer, a signature that fails, a missing delivery, an event under two webhook-ids, or a delivery the database does not hold as succeeded.

### Delivery rate

| endpoints | events | deliveries | deliveries/s, first to last received | from the insert to the last | fan-out (relay) | CPU a delivery: server + PostgreSQL | core 1 / core 0 busy | attempts / same-id repeats |
|--:|--:|--:|--:|---|--:|--:|--:|--:|
${rows.map(rateLine).join('\n')}

A warm-up of ${WARMUP_EVENTS} events to one endpoint ran first and is not counted. "fan-out": events over the time from the insert until the relay's last batch began (\`dispatched_at\`). CPU: the server process and every PostgreSQL process (\`/proc\`), over the row, per delivery; core 1 runs both, core 0 this script.

### Outage recovery

Server restarted with \`WEBHOOK_RETRY_SCHEDULE=${OUTAGE_SCHEDULE}\` (a delivery's retry window: the sum + 1 s; the outage and the endpoint's next probe after it must fit in it) and \`WEBHOOK_DISABLE_AFTER_SECONDS=86400\`. ${fmt(o.rate)} events/s for ${o.before + o.down + o.after} s to ${o.endpoints} endpoints; after ${o.before} s the receiver goes down for ${o.down} s, then comes back. ${outages.map((x) => (x.mode === '503' ? '**503**: it answers 503 to everything' : '**refused**: it stops listening and drops its connections (a server that is down)')).join('; ')}.

| | ${outages.map((x) => x.mode).join(' | ')} |
|---|${outages.map(() => '---').join('|')}|
${outageLines(outages)}

Target: delivery >= ${TARGET} deliveries/s (first to last): ${met ? 'met' : valid ? '**NOT met**' : '**NOT met (invalid rows)**'} (${rows.map((r) => `${fmt(r.steady)}/s with ${r.endpoints} endpoint${r.endpoints > 1 ? 's' : ''}`).join(', ')}).`;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
