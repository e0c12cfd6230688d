import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { QueueService } from '../../src/common/queue/queue.service';
import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';

/**
 * pg-boss 12 has no migration from pg-boss 10's schema and refuses to start on one. A database a
 * Sitebase on pg-boss 10 used still starts: the old schema is set aside, its unfinished jobs of
 * registered queues are queued again in pg-boss 12's schema, and the old schema is dropped
 * (src/common/queue/pgboss-v10.ts).
 */
const V10_SCHEMA = readFileSync(join(__dirname, '../fixtures/pgboss-v10-schema.sql'), 'utf8');
const QUEUE = 'probe.v10';

@Injectable()
class V10Probe implements OnModuleInit {
  readonly runs: string[] = [];
  constructor(private readonly queue: QueueService) {}
  onModuleInit(): void {
    this.queue.register<{ tag: string }>(QUEUE, async ({ tag }) => void this.runs.push(tag));
  }
}

@Module({ providers: [V10Probe] })
class V10ProbeModule {}

describe('the job queue on a database pg-boss 10 used', () => {
  let url: string;
  let t: TestApp | undefined;
  afterAll(() => t?.close());

  beforeAll(async () => {
    url = await createFreshDatabase('pgboss10');
    const c = new Client({ connectionString: url });
    await c.connect();
    try {
      await c.query('DROP SCHEMA pgboss CASCADE');
      await c.query(V10_SCHEMA);
      const options = { policy: 'standard', retryLimit: 2, retryDelay: 0, retryBackoff: false, expireInSeconds: 900 };
      for (const name of [QUEUE, 'removed.queue'])
        await c.query('SELECT pgboss.create_queue($1, $2)', [
          name,
          JSON.stringify({ ...options, retentionMinutes: 20160 }),
        ]);
      await c.query(
        `INSERT INTO pgboss.job (name, data, state, retry_count, priority, singleton_key, start_after) VALUES
           ($1, '{"tag":"waiting"}', 'created', 0, 0, NULL, now()),
           ($1, '{"tag":"retrying"}', 'retry', 1, 0, NULL, now()),
           ($1, '{"tag":"interrupted"}', 'active', 0, 0, NULL, now()),
           ($1, '{"tag":"done"}', 'completed', 0, 0, NULL, now()),
           ($1, '{"tag":"later"}', 'created', 0, 3, 'key-1', now() + interval '1 day'),
           ('removed.queue', '{"tag":"orphan"}', 'created', 0, 0, NULL, now())`,
        [QUEUE],
      );
    } finally {
      await c.end();
    }
  });

  it('starts; unfinished jobs of registered queues are queued again, once; the old schema is gone', async () => {
    t = await startApp({ databaseUrl: url, extraModules: [V10ProbeModule] });
    const probe = t.app.get(V10Probe);

    await eventually(async () => (probe.runs.length >= 3 ? true : undefined));
    expect([...probe.runs].sort()).toEqual(['interrupted', 'retrying', 'waiting']);
    // A job due later keeps its start time, priority and singleton key.
    expect(
      await t.db.query(
        `SELECT state, priority, singleton_key, start_after > now() + interval '23 hours' AS later
           FROM pgboss.job WHERE name = $1 AND data->>'tag' = 'later'`,
        [QUEUE],
      ),
    ).toEqual([{ state: 'created', priority: 3, singleton_key: 'key-1', later: true }]);
    // A finished job and a job of a queue no module registers stay behind, with the old schema.
    expect(
      await t.db.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'tag' IN ('done', 'orphan')`),
    ).toEqual([{ n: 0 }]);
    expect(await t.db.query(`SELECT to_regnamespace('pgboss_v10') IS NULL AS gone`)).toEqual([{ gone: true }]);

    // A second start has nothing left to carry over: the queue holds the same four jobs.
    const jobs = (app: TestApp) => app.db.query(`SELECT id FROM pgboss.job WHERE name = $1 ORDER BY id`, [QUEUE]);
    const before = await jobs(t);
    expect(before).toHaveLength(4);
    await t.close();
    t = await startApp({ databaseUrl: url, extraModules: [V10ProbeModule] });
    expect(await jobs(t)).toEqual(before);
  });
});
