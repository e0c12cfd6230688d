import { Logger } from '@nestjs/common';
import type { JobInsert, PgBoss } from 'pg-boss';
import { DataSource } from 'typeorm';
import { sql } from '../../database/sql';

/**
 * A database a Sitebase on pg-boss 10 used. pg-boss 11 rewrote its schema without a migration
 * from pg-boss 10's (schema version 24), and pg-boss 12 refuses to start on one ("Cannot migrate
 * pg-boss schema from version 24"). So the old schema is set aside before pg-boss starts, and
 * once the queues exist its unfinished jobs are queued again in the new one (docs/upgrades.md).
 */
export const PGBOSS_V10_SCHEMA = 'pgboss_v10';

/** The first schema version pg-boss 12 migrates from (pg-boss 11.0's). */
const FIRST_MIGRATABLE_VERSION = 25;

const logger = new Logger('Queue');

/**
 * Before pg-boss starts, under the queue set-up lock: renames a pg-boss 10 schema `schema` to
 * `pgboss_v10`, so that pg-boss installs its own beside it. True when it did.
 */
export async function setAsideV10Schema(ds: DataSource, schema: string): Promise<boolean> {
  const [installed] = (
    await sql<{ present: boolean }>(ds, 'SELECT to_regclass($1) IS NOT NULL AS present', [`${schema}.version`])
  ).rows;
  if (!installed.present) return false;
  const [row] = (await sql<{ version: number }>(ds, `SELECT version FROM ${schema}.version`)).rows;
  if (!row || Number(row.version) >= FIRST_MIGRATABLE_VERSION) return false;
  await sql(ds, `ALTER SCHEMA ${schema} RENAME TO ${PGBOSS_V10_SCHEMA}`);
  logger.warn(
    { schemaVersion: Number(row.version), movedTo: PGBOSS_V10_SCHEMA },
    'The job queue holds a pg-boss 10 schema: set aside, its jobs are queued again once the queues exist',
  );
  return true;
}

interface V10Job {
  id: string;
  name: string;
  data: object | null;
  priority: number;
  singleton_key: string | null;
  start_after: Date;
}

/**
 * After the queues are created, under the queue set-up lock: queues every job of `pgboss_v10`
 * that had not finished (created, waiting for a retry, or active when its server stopped) again
 * under its id, data, priority, singleton key and start time, and drops the old schema, in one
 * transaction. A job starts with its queue's retries anew. Jobs of queues no module registers
 * any more are dropped with the schema (counted in the log line). Nothing to do on any database
 * pg-boss 10 never used, or once done.
 */
export async function carryOverV10Jobs(ds: DataSource, boss: PgBoss, queues: ReadonlySet<string>): Promise<void> {
  const [old] = (
    await sql<{ present: boolean }>(ds, 'SELECT to_regnamespace($1) IS NOT NULL AS present', [PGBOSS_V10_SCHEMA])
  ).rows;
  if (!old.present) return;
  const moved = new Map<string, number>();
  let dropped = 0;
  await ds.transaction(async (em) => {
    const jobs = (
      await sql<V10Job>(
        em,
        `SELECT id, name, data, priority, singleton_key, start_after FROM ${PGBOSS_V10_SCHEMA}.job
          WHERE state IN ('created', 'retry', 'active') ORDER BY created_on, id`,
      )
    ).rows;
    const byQueue = new Map<string, JobInsert[]>();
    for (const job of jobs) {
      if (!queues.has(job.name)) {
        dropped += 1;
        continue;
      }
      const list = byQueue.get(job.name) ?? [];
      byQueue.set(job.name, list);
      list.push({
        id: job.id,
        data: job.data ?? {},
        priority: job.priority,
        startAfter: job.start_after,
        ...(job.singleton_key !== null ? { singletonKey: job.singleton_key } : {}),
      });
    }
    const db = {
      executeSql: async (text: string, values?: unknown[]) => ({ rows: (await sql(em, text, values)).rows }),
    };
    for (const [name, list] of byQueue) {
      // ON CONFLICT DO NOTHING: of two jobs a policy allows only one of (a stately queue's waiting
      // and interrupted run of one key), the first stays.
      const ids = await boss.insert(name, list, { db, returnId: true });
      moved.set(name, ids?.length ?? 0);
    }
    await sql(em, `DROP SCHEMA ${PGBOSS_V10_SCHEMA} CASCADE`);
  });
  logger.warn(
    { queued: Object.fromEntries(moved), droppedOfUnknownQueues: dropped },
    'Unfinished jobs of pg-boss 10 queued again; its schema is dropped',
  );
}
