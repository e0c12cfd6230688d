import { DataSource, EntityManager } from 'typeorm';
import { sql } from './sql';

/** Rows that age out of a table: its time column (with an index on it) and any other condition. */
export interface AgingRows {
  /** A table with an `id` primary key. */
  table: string;
  /** The column the age is read from; an index on it keeps the statement a range scan. */
  time: string;
  /** More conditions on the row (SQL over the table's columns), such as `status <> 'pending'`. */
  where?: string;
}

/**
 * The retention statement (docs/deployment.md, "Storage and retention"): deletes at most `limit`
 * of the rows whose `time` is more than `seconds` old, oldest first, in one statement, and
 * answers how many. `id = ANY(ARRAY(…))` rather than `IN (…)`: PostgreSQL planned the latter as a
 * scan of the whole table for each batch. Table and columns are the caller's constants, never input.
 */
export async function deleteAged(
  db: DataSource | EntityManager,
  rows: AgingRows,
  seconds: number,
  limit: number,
): Promise<number> {
  const { rowCount } = await sql(
    db,
    `DELETE FROM ${rows.table} WHERE id = ANY(ARRAY(
       SELECT id FROM ${rows.table} WHERE ${rows.time} < now() - make_interval(secs => $1)${rows.where ? ` AND ${rows.where}` : ''}
        ORDER BY ${rows.time} LIMIT $2))`,
    [seconds, limit],
  );
  return rowCount;
}

export const DAY_SECONDS = 86_400;
