import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { MaintenanceService, RetentionOutcome } from '../../src/common/maintenance.service';
import { RetentionRegistry } from '../../src/common/retention/retention.registry';
import { startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { sample } from '../support/prometheus';
import { createTenant, Tenant } from '../support/tenant';

const TOKEN = 'retention-metrics-token';
const BATCH = 10;
const MAX_BATCHES = 3;

/** The rows of docs/deployment.md's table under "Storage and retention": [table cell, setting cell]. */
function retentionTable(): Array<{ tables: string; setting: string }> {
  const doc = readFileSync(join(__dirname, '../../docs/deployment.md'), 'utf8');
  const section = doc.split('## Storage and retention')[1]?.split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line.split('|').map((c) => c.trim());
      return { tables: cells[1], setting: cells[5] };
    });
}

/**
 * Issue 48, point 3: the maintenance job runs every module's retention rule in bounded batches
 * (RETENTION_BATCH_SIZE rows a statement, at most RETENTION_MAX_BATCHES a run), old rows go,
 * young ones stay, a failing rule does not stop the others, and /metrics shows it.
 */
describe('retention (the maintenance job)', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let run: () => Promise<RetentionOutcome[]>;
  const outcomeOf = (outcomes: RetentionOutcome[], rule: string) => outcomes.find((o) => o.rule === rule);
  const count = async (table: string, where = 'true', params: unknown[] = []) =>
    (await t.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params))[0].n as number;

  beforeAll(async () => {
    t = await startApp({
      // A database of its own: the rules act on every site's rows.
      databaseUrl: await createFreshDatabase('retention'),
      env: {
        JOBS_ENABLED: 'false',
        METRICS_TOKEN: TOKEN,
        METRICS_CACHE_MS: '0',
        RETENTION_BATCH_SIZE: String(BATCH),
        RETENTION_MAX_BATCHES: String(MAX_BATCHES),
      },
    });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
    const maintenance = t.app.get(MaintenanceService);
    run = () => maintenance.cleanup();
    await run(); // whatever the tenants' creation left
  });
  afterAll(() => t?.close());

  /** `n` idempotency keys of a scope, stored `ageSeconds` ago. */
  const keys = (scope: string, n: number, ageSeconds: number) =>
    t.db.query(
      `INSERT INTO idempotency_keys (scope, key, method, path, request_hash, created_at)
       SELECT $1, 'k' || i, 'POST', '/x', 'h', now() - make_interval(secs => $3) FROM generate_series(1, $2) i`,
      [scope, n, ageSeconds],
    );

  it('removes a rule’s old rows in batches of RETENTION_BATCH_SIZE, keeps the young ones, and counts them', async () => {
    const ttl = t.configs.http.IDEMPOTENCY_TTL_SECONDS;
    await keys('batches-old', 25, ttl + 60);
    await keys('batches-young', 4, 60);
    const outcome = outcomeOf(await run(), 'idempotency.keys');
    // 10 + 10 + 5: three statements, the last one short.
    expect(outcome).toEqual({ rule: 'idempotency.keys', removed: 25, batches: 3, capped: false });
    expect(await count('idempotency_keys', `scope = 'batches-old'`)).toBe(0);
    expect(await count('idempotency_keys', `scope = 'batches-young'`)).toBe(4);
    const metrics = await request(t.server).get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    expect(sample(metrics.text, 'sitebase_retention_rows_total', { rule: 'idempotency.keys' })).toBe(25);
    const last = sample(metrics.text, 'sitebase_retention_last_run_timestamp_seconds', { rule: 'idempotency.keys' });
    expect(last).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(last).toBeLessThanOrEqual(Date.now() / 1000);
  });

  it('stops a rule at RETENTION_MAX_BATCHES and leaves the rest for the next run', async () => {
    const ttl = t.configs.http.IDEMPOTENCY_TTL_SECONDS;
    await keys('cap-old', 35, ttl + 60);
    expect(outcomeOf(await run(), 'idempotency.keys')).toEqual({
      rule: 'idempotency.keys',
      removed: 30,
      batches: 3,
      capped: true,
    });
    expect(await count('idempotency_keys', `scope = 'cap-old'`)).toBe(5);
    expect(outcomeOf(await run(), 'idempotency.keys')).toMatchObject({ removed: 5, batches: 1, capped: false });
    expect(await count('idempotency_keys', `scope = 'cap-old'`)).toBe(0);
  });

  it('removes old sessions, codes, Stripe event ids and dispatched events of every site, and keeps young ones', async () => {
    const days = {
      sessions: t.configs.users.USER_SESSION_RETENTION_DAYS,
      payments: t.configs.payments.PAYMENT_EVENT_RETENTION_DAYS,
      outbox: t.configs.jobs.OUTBOX_RETENTION_DAYS,
    };
    for (const [x, tag] of [
      [a, 'a'],
      [b, 'b'],
    ] as const) {
      const [{ id: userId }] = await t.db.query(
        `INSERT INTO site_users (site_id, email) VALUES ($1, $2) RETURNING id`,
        [x.siteId, `${tag}@example.com`],
      );
      // Sessions: one expired long ago, one expired lately, one live.
      await t.db.query(
        `INSERT INTO user_sessions (site_id, user_id, token_hash, expires_at)
         VALUES ($1, $2, $3 || '-old', now() - make_interval(days => $4 + 1)),
                ($1, $2, $3 || '-late', now() - interval '1 day'),
                ($1, $2, $3 || '-live', now() + interval '1 day')`,
        [x.siteId, userId, `retention-${tag}`, days.sessions],
      );
      await t.db.query(
        `INSERT INTO user_otps (site_id, email, purpose, salt, code_hash, expires_at)
         VALUES ($1, $2, 'sign_in', 's', 'h', now() - interval '2 days'), ($1, $2, 'sign_in', 's', 'h', now() - interval '1 hour')`,
        [x.siteId, `${tag}@example.com`],
      );
      await t.db.query(
        `INSERT INTO payment_events (site_id, event_id, mode, type, outcome, received_at)
         VALUES ($1, 'evt_old', 'test', 't', 'applied', now() - make_interval(days => $2 + 1)),
                ($1, 'evt_young', 'test', 't', 'applied', now() - make_interval(days => $2 - 1))`,
        [x.siteId, days.payments],
      );
      await t.db.query(
        `INSERT INTO outbox_events (account_id, site_id, name, payload, dispatched_at)
         VALUES ($1, $2, 'retention.old', '{}', now() - make_interval(days => $3 + 1)),
                ($1, $2, 'retention.young', '{}', now() - make_interval(days => $3 - 1)),
                ($1, $2, 'retention.parked', '{}', NULL)`,
        [x.accountId, x.siteId, days.outbox],
      );
      // Make the parked one old and parked: pending and parked events are never removed.
      await t.db.query(
        `UPDATE outbox_events SET parked_at = now(), created_at = now() - interval '400 days'
          WHERE site_id = $1 AND name = 'retention.parked'`,
        [x.siteId],
      );
    }
    const outcomes = await run();
    for (const rule of ['users.sessions', 'users.otps', 'payments.events', 'outbox.events'])
      expect(outcomeOf(outcomes, rule)).toMatchObject({ removed: 2, capped: false });
    for (const x of [a, b]) {
      const tokens = await t.db.query('SELECT token_hash FROM user_sessions WHERE site_id = $1 ORDER BY id', [
        x.siteId,
      ]);
      expect(tokens.map((r: { token_hash: string }) => r.token_hash.replace(/^retention-.-/, ''))).toEqual([
        'late',
        'live',
      ]);
      expect(await count('user_otps', 'site_id = $1', [x.siteId])).toBe(1);
      const evts = await t.db.query('SELECT event_id FROM payment_events WHERE site_id = $1', [x.siteId]);
      expect(evts).toEqual([{ event_id: 'evt_young' }]);
      const names = await t.db.query(
        `SELECT name FROM outbox_events WHERE site_id = $1 AND name LIKE 'retention.%' ORDER BY id`,
        [x.siteId],
      );
      expect(names.map((r: { name: string }) => r.name)).toEqual(['retention.young', 'retention.parked']);
    }
  });

  it('removes finished webhook deliveries past WEBHOOK_LOG_RETENTION_DAYS with their attempts, and ended rate-limit windows', async () => {
    const days = t.configs.webhooks.WEBHOOK_LOG_RETENTION_DAYS;
    const [{ id: endpointId }] = await t.db.query(
      `INSERT INTO webhook_endpoints (site_id, url, event_types, secret)
       VALUES ($1, 'https://hooks.example/x', '{*}', 's') RETURNING id`,
      [b.siteId],
    );
    const deliveries = await t.db.query(
      `INSERT INTO webhook_deliveries (site_id, endpoint_id, event_type, payload, status, created_at)
       VALUES ($1, $2, 't', '{}', 'succeeded', now() - make_interval(days => $3 + 1)),
              ($1, $2, 't', '{}', 'pending', now() - make_interval(days => $3 + 1)),
              ($1, $2, 't', '{}', 'failed', now() - make_interval(days => $3 - 1))
       RETURNING id, status`,
      [b.siteId, endpointId, days],
    );
    for (const { id } of deliveries)
      await t.db.query(
        `INSERT INTO webhook_attempts (delivery_id, attempted_at, duration_ms) VALUES ($1, now(), 5), ($1, now(), 5)`,
        [id],
      );
    await t.db.query(
      `INSERT INTO rate_limits (key, hits, expires_at, blocked_until) VALUES
         ('retention:ended', 3, now() - interval '1 minute', NULL),
         ('retention:blocking', 3, now() - interval '1 minute', now() + interval '1 hour'),
         ('retention:open', 3, now() + interval '1 minute', NULL)`,
    );
    const outcomes = await run();
    expect(outcomeOf(outcomes, 'webhooks.log')).toMatchObject({ removed: 1, capped: false });
    expect(outcomeOf(outcomes, 'rate-limit.windows')?.error).toBeUndefined();
    const left = await t.db.query('SELECT status FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id', [
      endpointId,
    ]);
    expect(left).toEqual([{ status: 'pending' }, { status: 'failed' }]);
    expect(await count('webhook_attempts', 'delivery_id = $1', [deliveries[0].id])).toBe(0);
    expect(await count('webhook_attempts', 'delivery_id = ANY($1)', [[deliveries[1].id, deliveries[2].id]])).toBe(4);
    const keysLeft = await t.db.query(`SELECT key FROM rate_limits WHERE key LIKE 'retention:%' ORDER BY key`);
    expect(keysLeft).toEqual([{ key: 'retention:blocking' }, { key: 'retention:open' }]);
  });

  it('removes the staged rows of finished imports only', async () => {
    const imports = await t.db.query(
      `INSERT INTO newsletter_imports (site_id, status, mode, consent, overwrite)
       VALUES ($1, 'failed', 'subscribe', true, false), ($1, 'running', 'subscribe', true, false) RETURNING id`,
      [a.siteId],
    );
    for (const { id } of imports)
      await t.db.query(
        `INSERT INTO newsletter_import_chunks (import_id, chunk_no, row_nos, emails, names, attributes)
         SELECT $1, n, '{1}', '{x@example.com}', '{""}', ARRAY['{}'::jsonb] FROM generate_series(1, 3) n`,
        [id],
      );
    expect(outcomeOf(await run(), 'newsletter.import-chunks')).toMatchObject({ removed: 3 });
    expect(await count('newsletter_import_chunks', 'import_id = $1', [imports[0].id])).toBe(0);
    expect(await count('newsletter_import_chunks', 'import_id = $1', [imports[1].id])).toBe(3);
  });

  it('every rule’s table and setting are in docs/deployment.md’s table', () => {
    const rows = retentionTable();
    expect(rows.length).toBeGreaterThan(5);
    const missing = t.app
      .get(RetentionRegistry)
      .list()
      .filter((rule) => {
        const row = rows.find((r) => r.tables.includes(`\`${rule.table}\``));
        if (!row) return true;
        return rule.setting === null ? row.setting !== '—' : !row.setting.includes(`\`${rule.setting}\``);
      })
      .map((rule) => `${rule.name} (table ${rule.table}, setting ${rule.setting ?? '—'})`);
    expect(missing).toEqual([]);
  });

  it('a rule that throws is logged and the rules after it still run', async () => {
    const registry = t.app.get(RetentionRegistry);
    const ran: number[] = [];
    registry.register({
      name: 'test.failing',
      table: 'nowhere',
      setting: null,
      what: 'fails',
      run: async (db) => {
        await db.query('SELECT * FROM retention_no_such_table');
        return 0;
      },
    });
    registry.register({
      name: 'test.after',
      table: 'nowhere',
      setting: null,
      what: 'counts its runs',
      run: async (_db, limit) => {
        ran.push(limit);
        return 0;
      },
    });
    const outcomes = await run();
    expect(outcomeOf(outcomes, 'test.failing')).toMatchObject({
      removed: 0,
      error: expect.stringContaining('retention_no_such_table'),
    });
    expect(outcomeOf(outcomes, 'test.after')).toEqual({ rule: 'test.after', removed: 0, batches: 1, capped: false });
    expect(ran).toEqual([BATCH]);
    const metrics = await request(t.server).get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    expect(sample(metrics.text, 'sitebase_retention_last_run_timestamp_seconds', { rule: 'test.after' })).toEqual(
      expect.any(Number),
    );
    // A failed run is not a finished one.
    expect(
      sample(metrics.text, 'sitebase_retention_last_run_timestamp_seconds', { rule: 'test.failing' }),
    ).toBeUndefined();
  });
});
