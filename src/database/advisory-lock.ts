import { DataSource } from 'typeorm';

/**
 * Runs `fn` while holding a session-level PostgreSQL advisory lock on its own connection, so
 * several instances starting together take turns (migrations, queue set-up). The lock is held
 * across whatever connections `fn` uses.
 */
export async function withAdvisoryLock<T>(ds: DataSource, key: number, fn: () => Promise<T>): Promise<T> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [key]);
    return await fn();
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
    await runner.release();
  }
}
