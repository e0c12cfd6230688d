'use strict';
// Email benchmark (issue 11):
//  1. render-and-enqueue: POST /api/v2/sites/demo/email/send with a template type and data, one
//     recipient, under load from autocannon; job workers off (JOBS_ENABLED=false), so the row
//     measures the request path only: validate, render (Liquid, juice, html-to-text), record,
//     enqueue. Every answer must be 202.
//  2. delivery: the server restarted with workers on and SMTP_URL pointing at an SMTP sink in
//     this process (smtp-server, on the load core); the time from its start until the sink has
//     every queued message and the database says `sent` for all. Twice: the messages of (1),
//     one job each; then 50-recipient sends (50 messages a job), as campaign batches go.
// Target: delivery >= 300 messages/s on this machine.
// Usage: npm run build && node bench/email.js   (writes the email section of docs/benchmarks.md)
const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir, cpus } = require('node:os');
const { join } = require('node:path');
const { Client } = require('pg');
const { SMTPServer } = require('smtp-server');
const { startServer, load, writeSection, benchDatabase, PIN, sleep } = require('./lib');

const PORT = 3911;
const KEY = 'sb_live_emailbenchemailbenchemailbench1234';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const BATCH_SENDS = Number(process.env.BENCH_EMAIL_BATCHES ?? 60);

function sink() {
  let received = 0;
  const times = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    maxClients: 100,
    onData(stream, _session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        received += 1;
        times.push(performance.now());
        callback(null, 'OK');
      });
    },
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `smtp://127.0.0.1:${server.server.address().port}`,
        get received() {
          return received;
        },
        /** When the i-th mail (0-based, over the sink's life) arrived. */
        at: (i) => times[i],
        close: () => new Promise((r) => server.close(r)),
      }),
    ),
  );
}

async function countByStatus(url) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query('SELECT status, count(*)::int AS n FROM email_messages GROUP BY status');
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  } finally {
    await c.end();
  }
}

/** Starts a server with workers on and waits until `total` messages are sent; messages/s. */
async function deliver(env, smtp, total) {
  const before = smtp.received;
  const started = performance.now();
  const server = await startServer(
    { ...env, JOBS_ENABLED: 'true', SMTP_URL: smtp.url, JOBS_POLL_SECONDS: '1' },
    // BENCH_PROFILE=dir writes a CPU profile of each delivery run there.
    { nodeArgs: process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [] },
  );
  try {
    for (;;) {
      if (smtp.received - before >= total) break;
      if (performance.now() - started > 600_000)
        throw new Error(`only ${smtp.received - before} of ${total} delivered`);
      await sleep(20);
    }
    const seconds = (performance.now() - started) / 1000;
    // Steady rate: from the first mail of this run to the last, the server's start left out.
    const steady = (total - 1) / ((smtp.at(before + total - 1) - smtp.at(before)) / 1000);
    for (;;) {
      const counts = await countByStatus(env.DATABASE_URL);
      if (!counts.queued && !counts.sending) return { seconds, perSecond: total / seconds, steady, counts };
      await sleep(50);
    }
  } finally {
    await server.stop();
  }
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sitebase-bench-email-'));
  chmodSync(dataDir, 0o755);
  const db = await benchDatabase('email', dataDir, 54393);
  if (!db.url) throw new Error('bench/email.js needs DATABASE_URL (it reads the messages table directly)');
  const smtp = await sink();
  const env = {
    ...db.env,
    PORT: String(PORT),
    BOOTSTRAP_API_KEY: KEY,
    BOOTSTRAP_SITE: 'demo',
    PUBLIC_BASE_URL: `http://127.0.0.1:${PORT}`,
    RATE_LIMIT_KEY_MAX: '0',
  };
  const send = (body) => ({
    url: `http://127.0.0.1:${PORT}/api/v2/sites/demo/email/send`,
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  try {
    // 1. render and enqueue, workers off
    let server = await startServer(
      { ...env, JOBS_ENABLED: 'false' },
      { nodeArgs: process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [] },
    );
    const otp = send({
      to: [{ email: 'reader@example.com', name: 'Reader' }],
      templateType: 'users.otp',
      data: { code: '482913', expiresInMinutes: 10, userName: 'Ada' },
    });
    console.error('render and enqueue: warm-up');
    await load({ ...otp, duration: 3, connections: 16 }); // warm-up
    const enqueue = await load({ ...otp, duration: SECONDS, connections: 16 });
    await server.stop();
    if (enqueue.errors) throw new Error(`render-and-enqueue: ${enqueue.errors} non-2xx answers: the row is invalid`);
    const queued = (await countByStatus(db.url)).queued;

    // 2a. deliver those: one message per job
    console.error(`delivering ${queued} messages, one a job`);
    const single = await deliver(env, smtp, queued);

    // 2b. 50-recipient sends: 50 messages per job
    server = await startServer({ ...env, JOBS_ENABLED: 'false' });
    const recipients = Array.from({ length: 50 }, (_, i) => ({ email: `r${i}@example.com` }));
    for (let i = 0; i < BATCH_SENDS; i++) {
      const res = await fetch(`http://127.0.0.1:${PORT}/api/v2/sites/demo/email/send`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({
          to: recipients.slice(0, 1),
          bcc: recipients.slice(1),
          templateType: 'newsletter.campaign',
          data: {
            subject: `Issue ${i}`,
            contentHtml: '<h1>Hello</h1><p>News.</p>',
            unsubscribeUrl: 'https://x.example/u',
          },
        }),
      });
      if (res.status !== 202) throw new Error(`batch send ${i}: ${res.status}`);
    }
    await server.stop();
    const batched = await deliver(env, smtp, BATCH_SENDS * 50);

    const md = `## Email (issue 11)

Run: ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} cores, ${db.label}; server ${PIN ? 'pinned to core 1' : 'unpinned'}, load generator and SMTP sink on core 0 (the database server is the machine's, not pinned). \`npm run build && node bench/email.js\`.

| row | what | result |
|---|---|---|
| render and enqueue | \`POST /email/send\`, template \`users.otp\` with data, 1 recipient; validate, render (Liquid, juice, html-to-text), record, enqueue; workers off; autocannon, 16 connections, ${SECONDS} s; every answer 202 | **${enqueue.rps} sends/s** (p50 ${enqueue.p50} ms, p99 ${enqueue.p99} ms) |
| delivery, one message a job | the ${queued} messages above, over SMTP to a local sink, pooled (SMTP_POOL_SIZE=5), 2 worker loops of 16 jobs | **${single.steady.toFixed(0)} messages/s** steady (first to last mail); ${single.perSecond.toFixed(0)}/s counting the server's start (${single.seconds.toFixed(1)} s) |
| delivery, 50 messages a job | ${BATCH_SENDS} sends of 50 recipients (\`newsletter.campaign\`), as campaign batches are queued | **${batched.steady.toFixed(0)} messages/s** steady; ${batched.perSecond.toFixed(0)}/s counting the start (${batched.seconds.toFixed(1)} s) |

Target: delivery >= 300 messages/s (steady): ${single.steady >= 300 && batched.steady >= 300 ? 'met' : 'NOT met'} (${single.steady.toFixed(0)} one a job, ${batched.steady.toFixed(0)} fifty a job).`;
    writeSection('email', md);
    console.log(md);
  } finally {
    await smtp.close();
    await db.drop().catch((err) => console.error('could not drop the bench database', err.message));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
