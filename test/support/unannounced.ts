import type { DataSource } from 'typeorm';

/**
 * Runs SQL with the triggers off for its one transaction (`session_replication_role = replica`):
 * a change no NOTIFY announces, which a read cache can only pick up on a miss. The read-cache
 * tests use it to tell a read from memory from one from the database.
 */
export function unannounced(db: DataSource, sql: string, params: unknown[]): Promise<void> {
  return db.transaction(async (em) => {
    await em.query('SET LOCAL session_replication_role = replica');
    await em.query(sql, params);
  });
}
