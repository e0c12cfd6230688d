import { ChildProcess, spawn } from 'node:child_process';
import { Agent, createServer, IncomingHttpHeaders, request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import type { Response } from 'supertest';
import { entryCommand } from '../support/compiled-entry';
import { createFreshDatabase, freePort } from '../support/databases';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

/**
 * docs/deployment.md: several instances (separate server processes, src/main.ts as deployed)
 * on ONE database behind a load balancer. The balancer is a small round-robin HTTP proxy in this
 * file (127.0.0.1 only); every request below goes through it. It appends the caller's address to
 * `x-forwarded-for`, as a real one does, and the instances trust it (`TRUST_PROXY=loopback`), so
 * each request names its client address; `x-upstream` pins one instance where a check needs it.
 */

const ROOT = join(__dirname, '..', '..');
const main = entryCommand('src/main.ts');
const INSTANCES = 2;
const KEY = 'sb_live_instancesinstancesinstances12345';
const SITE = 'demo';
const LIMIT = 12;
/** Longer than the whole file: a fresh read on the other instance can only come from the invalidation. */
const CONTENT_TTL_MS = 600_000;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body, when it is JSON (untyped, as supertest's). */
  body: Response['body'];
  /** Which instance answered (0-based), as the proxy tells. */
  upstream: number;
}

interface Instance {
  port: number;
  process: ChildProcess;
  output: string;
}

describe(`${INSTANCES} instances on one database behind a round-robin load balancer`, () => {
  const instances: Instance[] = [];
  const noKeepAlive = new Agent({ keepAlive: false });
  let proxy: Server;
  let proxyUrl: string;
  let db: Client;
  let smtp: SmtpSink;
  let receiver: WebhookReceiver;
  let next = 0;
  let clients = 0;

  /** A client address of its own per request unless told, so no check meets another's rate limit. */
  const newClient = () => {
    clients += 1;
    return `10.${(clients >> 16) & 255}.${(clients >> 8) & 255}.${clients & 255}`;
  };

  function call(
    method: string,
    path: string,
    options: { key?: string; bearer?: string; body?: unknown; client?: string; upstream?: number } = {},
  ): Promise<Answer> {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = { 'x-forwarded-for': options.client ?? newClient() };
    if (options.key) headers['x-api-key'] = options.key;
    if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
    if (payload) headers['content-type'] = 'application/json';
    if (options.upstream !== undefined) headers['x-upstream'] = String(options.upstream);
    return new Promise((resolve, reject) => {
      const req = request(proxyUrl + path, { method, headers, agent: noKeepAlive }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            body,
            upstream: Number(res.headers['x-upstream']),
          });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** The same request once on every instance, pinned, in order. */
  const onEvery = (method: string, path: string, options: Parameters<typeof call>[2] = {}) =>
    Promise.all(instances.map((_, i) => call(method, path, { ...options, upstream: i })));

  const query = async <T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> =>
    (await db.query(text, params)).rows as T[];

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function until<T>(check: () => Promise<T | undefined> | T | undefined, what: string, ms = 20_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > end) {
        const logs = instances.map((s, i) => `--- instance ${i}\n${s.output}`).join('\n');
        throw new Error(`timed out waiting for ${what}\n${logs}`);
      }
      await sleep(100);
    }
  }

  /** The round-robin balancer: each request to the next instance, unless `x-upstream` pins one. */
  function startProxy(): Promise<void> {
    proxy = createServer((req, res) => {
      const pinned = req.headers['x-upstream'];
      const i = pinned === undefined ? next++ % instances.length : Number(pinned);
      const headers = { ...req.headers };
      delete headers['x-upstream'];
      const forwarded = req.headers['x-forwarded-for'];
      headers['x-forwarded-for'] = forwarded
        ? `${String(forwarded)}, ${req.socket.remoteAddress}`
        : req.socket.remoteAddress;
      const upstream = request(
        { host: '127.0.0.1', port: instances[i].port, method: req.method, path: req.url, headers, agent: noKeepAlive },
        (up) => {
          res.writeHead(up.statusCode ?? 502, { ...up.headers, 'x-upstream': String(i) });
          up.pipe(res);
        },
      );
      upstream.on('error', () => {
        res.writeHead(502, { 'x-upstream': String(i) });
        res.end();
      });
      req.pipe(upstream);
    });
    return new Promise((resolve) =>
      proxy.listen(0, '127.0.0.1', () => {
        proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
        resolve();
      }),
    );
  }

  beforeAll(async () => {
    const databaseUrl = await createFreshDatabase('instances');
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
    smtp = await startSmtpSink();
    receiver = await startWebhookReceiver();
    await startProxy();
    for (let i = 0; i < INSTANCES; i++) {
      const port = await freePort();
      const child = spawn(main.command, main.args, {
        cwd: ROOT,
        env: {
          ...process.env,
          WORKERS: '1',
          PORT: String(port),
          HOST: '127.0.0.1',
          PUBLIC_BASE_URL: proxyUrl,
          TRUST_PROXY: 'loopback',
          DATABASE_URL: databaseUrl,
          BOOTSTRAP_API_KEY: KEY,
          BOOTSTRAP_SITE: SITE,
          LOG_LEVEL: 'warn',
          JOBS_POLL_SECONDS: '1',
          OUTBOX_POLL_MS: '200',
          RATE_LIMIT_PUBLIC_MAX: String(LIMIT),
          CONTENT_CACHE_TTL_MS: String(CONTENT_TTL_MS),
          SMTP_URL: smtp.url,
          WEBHOOKS_ALLOW_PRIVATE: 'true',
          WEBHOOKS_ALLOW_HTTP: 'true',
          ACCOUNT_DELETION_GRACE_SECONDS: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const instance: Instance = { port, process: child, output: '' };
      child.stdout.on('data', (c: Buffer) => (instance.output += c.toString()));
      child.stderr.on('data', (c: Buffer) => (instance.output += c.toString()));
      instances.push(instance);
    }
    // Started together, as a deployment's replicas are: migrations, queue set-up and the first
    // start's bootstrap take turns under advisory locks.
    await until(
      () => (instances.every((s) => /listening on/.test(s.output)) ? true : undefined),
      'the instances',
      120_000,
    );
  }, 150_000);

  const alive = (s: Instance) => s.process.exitCode === null && s.process.signalCode === null;
  /** Also when jest exits without running afterAll (a timeout with forceExit): no server outlives the run. */
  const killAll = () => {
    for (const s of instances) if (alive(s)) s.process.kill('SIGKILL');
  };
  process.once('exit', killAll);

  afterAll(async () => {
    await Promise.all(
      instances.filter(alive).map(
        (s) =>
          new Promise((resolve) => {
            s.process.once('exit', resolve);
            s.process.kill('SIGKILL');
          }),
      ),
    );
    process.removeListener('exit', killAll);
    await new Promise((r) => proxy?.close(r));
    await smtp?.close();
    await receiver?.close();
    await db?.end();
  });

  it('both instances serve through the balancer; the first start bootstrapped once', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => call('GET', '/health/ready')));
    expect(answers.map((a) => [a.status, a.body])).toEqual(Array(6).fill([200, { status: 'ok', database: 'up' }]));
    expect(new Set(answers.map((a) => a.upstream))).toEqual(new Set([0, 1]));
    expect(await query('SELECT count(*)::int AS n FROM accounts')).toEqual([{ n: 1 }]);
    expect(await query('SELECT name FROM sites')).toEqual([{ name: SITE }]);
    expect(await query('SELECT count(*)::int AS n FROM api_keys')).toEqual([{ n: 1 }]);
  });

  describe('jobs run once, whichever instance takes them', () => {
    let endpointId: number;

    beforeAll(async () => {
      const made = await call('POST', `/api/v2/sites/${SITE}/webhooks`, {
        key: KEY,
        body: { url: receiver.url, eventTypes: ['content.created', 'content.published'] },
      });
      expect(made.status).toBe(201);
      endpointId = made.body.id;
    });

    it('an outbox event reaches the webhook receiver once', async () => {
      const created = await Promise.all(
        Array.from({ length: 6 }, (_, n) =>
          call('POST', `/api/v2/sites/${SITE}/content`, { key: KEY, body: { title: `Hooked ${n}` } }),
        ),
      );
      expect(created.map((c) => c.status)).toEqual(Array(6).fill(201));
      expect(new Set(created.map((c) => c.upstream))).toEqual(new Set([0, 1]));
      const ids = created.map((c) => c.body.id as number).sort((a, b) => a - b);

      const isCreated = (r: { body: string }) => (JSON.parse(r.body) as { type: string }).type === 'content.created';
      await receiver.waitFor(6, isCreated);
      // Both relays and both delivery workers kept polling meanwhile: give them a few more polls.
      await sleep(1500);
      const got = receiver.requests.filter(isCreated);
      expect(got.map((r) => (JSON.parse(r.body) as { data: { id: number } }).data.id).sort((a, b) => a - b)).toEqual(
        ids,
      );
      expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(6);
      expect(
        await query(
          `SELECT d.event_type, d.status, d.attempts, count(*)::int AS n FROM webhook_deliveries d
            WHERE d.endpoint_id = $1 GROUP BY 1, 2, 3`,
          [endpointId],
        ),
      ).toEqual([{ event_type: 'content.created', status: 'succeeded', attempts: 1, n: 6 }]);
      expect(
        await query(
          `SELECT count(*)::int AS n, count(dispatched_at)::int AS dispatched FROM outbox_events
            WHERE name = 'content.created' AND (payload->>'id')::bigint = ANY($1)`,
          [ids],
        ),
      ).toEqual([{ n: 6, dispatched: 6 }]);
    });

    it('a scheduled publish happens once, and its event is delivered once', async () => {
      const items = await Promise.all(
        Array.from({ length: 4 }, (_, n) =>
          call('POST', `/api/v2/sites/${SITE}/content`, { key: KEY, body: { title: `Scheduled ${n}` } }),
        ),
      );
      const ids = items.map((c) => c.body.id as number).sort((a, b) => a - b);
      const publishAt = new Date(Date.now() + 2000);
      publishAt.setMilliseconds(0);
      const scheduled = await Promise.all(
        ids.map((id) =>
          call('POST', `/api/v2/sites/${SITE}/content/${id}/publish`, {
            key: KEY,
            body: { publishAt: publishAt.toISOString() },
          }),
        ),
      );
      expect(scheduled.map((s) => [s.status, s.body.status])).toEqual(Array(4).fill([200, 'scheduled']));

      const isPublished = (r: { body: string }) =>
        (JSON.parse(r.body) as { type: string }).type === 'content.published';
      await receiver.waitFor(4, isPublished);
      await sleep(1500);
      const got = receiver.requests.filter(isPublished);
      expect(got.map((r) => (JSON.parse(r.body) as { data: { id: number } }).data.id).sort((a, b) => a - b)).toEqual(
        ids,
      );
      expect(
        await query(
          `SELECT status, count(*)::int AS n, min(published_at) = $2 AS on_time FROM content_items
            WHERE id = ANY($1) GROUP BY 1`,
          [ids, publishAt],
        ),
      ).toEqual([{ status: 'published', n: 4, on_time: true }]);
      expect(
        await query(
          `SELECT action, actor_type, count(*)::int AS n FROM content_revisions
            WHERE content_id = ANY($1) AND action = 'published' GROUP BY 1, 2`,
          [ids],
        ),
      ).toEqual([{ action: 'published', actor_type: 'system', n: 4 }]);
      expect(
        await query(
          `SELECT count(*)::int AS n FROM outbox_events
            WHERE name = 'content.published' AND (payload->>'id')::bigint = ANY($1)`,
          [ids],
        ),
      ).toEqual([{ n: 4 }]);
    });

    it('a queued email is sent once (sign-in codes through either instance)', async () => {
      const before = smtp.received.length;
      const emails = Array.from({ length: 4 }, (_, n) => `reader${n}@example.com`);
      const asked = await Promise.all(
        emails.map((email) => call('POST', `/api/v2/sites/${SITE}/users/request-otp`, { body: { email } })),
      );
      expect(asked.map((a) => a.status)).toEqual(Array(4).fill(202));
      expect(new Set(asked.map((a) => a.upstream))).toEqual(new Set([0, 1]));
      await smtp.waitFor(before + 4);
      await sleep(1500);
      const mails = smtp.received.slice(before);
      expect(mails.flatMap((m) => m.to).sort()).toEqual(emails);
      expect(
        await query(
          `SELECT status, attempts, count(*)::int AS n FROM email_messages
            WHERE recipient = ANY($1) GROUP BY 1, 2`,
          [emails],
        ),
      ).toEqual([{ status: 'sent', attempts: 1, n: 4 }]);
    });
  });

  it('the public rate limit is one limit across the instances, within its documented slack', async () => {
    const client = '203.0.113.7';
    const answers: Answer[] = [];
    for (let i = 0; i < 3 * LIMIT; i++)
      answers.push(await call('GET', `/api/v2/sites/${SITE}/collections`, { client }));
    const ok = answers.filter((a) => a.status === 200).length;
    // docs/foundation.md, "Slack with N instances": at most about N x limit/2 hits past the limit.
    expect(ok).toBeGreaterThanOrEqual(LIMIT);
    expect(ok).toBeLessThanOrEqual(LIMIT + INSTANCES * (LIMIT / 2));
    // Once blocked, blocked on every instance: the last third all refused, by both.
    const last = answers.slice(2 * LIMIT);
    expect(last.map((a) => a.status)).toEqual(Array(LIMIT).fill(429));
    expect(new Set(last.map((a) => a.upstream))).toEqual(new Set([0, 1]));
    expect(last.every((a) => Number(a.headers['retry-after']) > 0)).toBe(true);
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
    // Another client on the same route is not affected: the limit is per client (x-forwarded-for).
    expect((await onEvery('GET', `/api/v2/sites/${SITE}/collections`)).map((a) => a.status)).toEqual([200, 200]);
    const [row] = await query<{ hits: number }>(`SELECT hits FROM rate_limits WHERE key LIKE $1`, [`ip:${client}:%`]);
    expect(row.hits).toBeGreaterThan(LIMIT);
  });

  it('a key works on every instance; revoked through one, it fails on every instance at the next request', async () => {
    const made = await call('POST', '/api/v2/api-keys', { key: KEY, body: { name: 'short-lived' } });
    expect(made.status).toBe(201);
    const { id, key } = made.body as { id: number; key: string };
    // Used several times on each, so each instance holds it in its key cache.
    for (let round = 0; round < 3; round++)
      expect((await onEvery('GET', '/api/v2/sites', { key })).map((a) => [a.status, a.body.data[0].name])).toEqual([
        [200, SITE],
        [200, SITE],
      ]);
    const revoked = await call('DELETE', `/api/v2/api-keys/${id}`, { key: KEY, upstream: 0 });
    expect(revoked.status).toBe(204);
    const after = await onEvery('GET', '/api/v2/sites', { key });
    expect(after.map((a) => [a.status, a.body.code])).toEqual([
      [401, 'invalid_api_key'],
      [401, 'invalid_api_key'],
    ]);
    expect(await query('SELECT revoked_at IS NOT NULL AS revoked FROM api_keys WHERE id = $1', [id])).toEqual([
      { revoked: true },
    ]);
  });

  it('a site-user session works on every instance; signed out through one, it fails on every instance', async () => {
    const email = 'member@example.com';
    const before = smtp.received.length;
    expect((await call('POST', `/api/v2/sites/${SITE}/users/request-otp`, { body: { email } })).status).toBe(202);
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    const code = /\b(\d{6})\b/.exec(mail.parsed.text ?? '')?.[1];
    expect(code).toEqual(expect.stringMatching(/^\d{6}$/));
    const signedIn = await call('POST', `/api/v2/sites/${SITE}/users/verify-otp`, { body: { email, code } });
    expect(signedIn.status).toBe(200);
    const token = signedIn.body.accessToken as string;
    for (let round = 0; round < 3; round++)
      expect(
        (await onEvery('GET', `/api/v2/sites/${SITE}/users/me`, { bearer: token })).map((a) => [
          a.status,
          a.body.email,
        ]),
      ).toEqual([
        [200, email],
        [200, email],
      ]);
    const out = await call('POST', `/api/v2/sites/${SITE}/users/me/sign-out`, { bearer: token, upstream: 1 });
    expect(out.status).toBe(204);
    const after = await onEvery('GET', `/api/v2/sites/${SITE}/users/me`, { bearer: token });
    expect(after.map((a) => [a.status, a.body.code])).toEqual([
      [401, 'invalid_session'],
      [401, 'invalid_session'],
    ]);
    expect(
      await query(
        `SELECT s.revoked_at IS NOT NULL AS revoked FROM user_sessions s JOIN site_users u ON u.id = s.user_id
          WHERE u.email = $1`,
        [email],
      ),
    ).toEqual([{ revoked: true }]);
  });

  it('a write through one instance is read at the next request on every instance, anonymously and with a key', async () => {
    const made = await call('POST', `/api/v2/sites/${SITE}/content`, {
      key: KEY,
      body: { title: 'Before', status: 'published' },
    });
    expect(made.status).toBe(201);
    const path = `/api/v2/sites/${SITE}/content/${made.body.slug}`;
    // Both instances read it anonymously and with a key, so both hold it in their read cache
    // (the TTL here is long enough that only the invalidation can explain a fresh read).
    for (const key of [undefined, KEY])
      expect((await onEvery('GET', path, { key })).map((a) => [a.status, a.body.title])).toEqual([
        [200, 'Before'],
        [200, 'Before'],
      ]);
    const edited = await call('PATCH', `/api/v2/sites/${SITE}/content/${made.body.id}`, {
      key: KEY,
      body: { title: 'After' },
      upstream: 0,
    });
    expect(edited.status).toBe(200);
    // The write answered once every instance had heard the site-data trigger's NOTIFY.
    for (const key of [undefined, KEY])
      expect((await onEvery('GET', path, { key })).map((a) => a.body.title)).toEqual(['After', 'After']);
  });

  it('each instance holds at most DB_POOL_SIZE + 5 connections (docs/deployment.md, "Connection budget")', async () => {
    const rows = await query<{ app: string; n: number }>(
      `SELECT application_name AS app, count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1 ORDER BY 1`,
    );
    const of = (app: string) => rows.find((r) => r.app === app)?.n ?? 0;
    // The request pool grows on demand up to DB_POOL_SIZE (10 by default); the job queue's up to
    // 4; one listening connection each.
    expect(of('sitebase')).toBeGreaterThanOrEqual(INSTANCES);
    expect(of('sitebase')).toBeLessThanOrEqual(INSTANCES * 10);
    expect(of('sitebase-queue')).toBeGreaterThanOrEqual(INSTANCES);
    expect(of('sitebase-queue')).toBeLessThanOrEqual(INSTANCES * 4);
    expect(of('sitebase-notifications')).toBe(INSTANCES);
    expect(rows.map((r) => r.app).filter((app) => !app.startsWith('sitebase'))).toEqual([]);
  });

  it('deleting the account: the purge runs once, and every instance forgets its site and key at once', async () => {
    const sitePath = `/api/v2/sites/${SITE}/collections`;
    // Both instances have the site cached (the site cache keeps a found site 30 s).
    expect((await onEvery('GET', sitePath)).map((a) => a.status)).toEqual([200, 200]);
    const asked = await call('DELETE', '/api/v2/account', { key: KEY });
    expect(asked.status).toBe(202);
    const done = await until(async () => {
      const [row] = await query<{ status: string }>('SELECT status FROM account_deletions');
      return row?.status === 'completed' ? row : undefined;
    }, 'the purge');
    expect(done).toEqual({ status: 'completed' });
    const sites = await onEvery('GET', sitePath);
    expect(sites.map((a) => [a.status, a.body.code])).toEqual([
      [404, 'site_not_found'],
      [404, 'site_not_found'],
    ]);
    const keys = await onEvery('GET', '/api/v2/sites', { key: KEY });
    expect(keys.map((a) => a.status)).toEqual([401, 401]);
    expect(await query('SELECT count(*)::int AS n FROM account_deletions')).toEqual([{ n: 1 }]);
    expect(
      await query('SELECT count(*)::int AS accounts, (SELECT count(*)::int FROM sites) AS sites FROM accounts'),
    ).toEqual([{ accounts: 0, sites: 0 }]);
  });
});
