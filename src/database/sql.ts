import { DataSource, EntityManager } from 'typeorm';

/** What one raw statement gave: its rows (possibly none) and how many rows it touched. */
export interface SqlResult<T> {
  rows: T[];
  rowCount: number;
}

export interface SqlOptions<T> {
  /**
   * bigint columns (ids, sizes) to hand back as numbers. Raw SQL skips the entities' id
   * transformer, and pg returns bigint as a string (these stay below 2^53; see MAX_ID).
   */
  bigints?: ReadonlyArray<keyof T & string>;
}

/**
 * The one way to run raw SQL (docs/modules.md: only `*.repository.ts` files and the foundation
 * do). TypeORM's `query()` answers rows for a SELECT but `[rows, count]` for an UPDATE or DELETE
 * with RETURNING (the account purge once read the wrong half); this reads the driver's
 * structured result, so rows are rows and the count is the count, whatever the statement.
 * Inside a transaction pass its EntityManager: the statement runs on the transaction's client.
 */
export async function sql<T extends object = Record<string, unknown>>(
  db: EntityManager | DataSource,
  text: string,
  params: unknown[] = [],
  options: SqlOptions<T> = {},
): Promise<SqlResult<T>> {
  const own = db instanceof DataSource ? undefined : db.queryRunner;
  const runner = own ?? (db instanceof DataSource ? db : db.connection).createQueryRunner();
  try {
    const result = await runner.query(text, params, true);
    const rows = (result.records ?? []) as T[];
    if (options.bigints?.length) {
      for (const row of rows) {
        const record = row as Record<string, unknown>;
        for (const column of options.bigints) {
          const value = record[column];
          if (typeof value === 'string') record[column] = Number(value);
        }
      }
    }
    return { rows, rowCount: result.affected ?? rows.length };
  } finally {
    if (!own) await runner.release();
  }
}

/**
 * A `{ executeSql }` database (pg-boss's `db` option) on `em`'s transaction: the library's own
 * statements run on the transaction's client, so what it writes commits or rolls back with it.
 */
export function transactionDb(em: EntityManager): {
  executeSql: (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>;
} {
  return { executeSql: async (text, values) => ({ rows: (await sql(em, text, values)).rows }) };
}

/** Takes a transaction-level advisory lock: held until the transaction of `em` ends. */
export async function advisoryXactLock(em: EntityManager, key: number): Promise<void> {
  await sql(em, 'SELECT pg_advisory_xact_lock($1)', [key]);
}

/**
 * A transaction-level advisory lock named by a string (`webhook_endpoints:12`): the name is
 * hashed to a 31-bit key, so two names may share a lock now and then, which only serialises them.
 */
export async function namedXactLock(em: EntityManager, name: string): Promise<void> {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (Math.imul(h, 31) + name.charCodeAt(i)) | 0;
  await advisoryXactLock(em, h & 0x7fffffff);
}

/** One round trip to the database (readiness). */
export async function ping(db: DataSource): Promise<void> {
  await sql(db, 'SELECT 1');
}
