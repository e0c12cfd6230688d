import type { Pool, PoolClient } from 'pg';
import type { DataSource } from 'typeorm';
import type { Fence } from './fence';

/*
 * TypeORM's PostgreSQL driver keeps its pg pool in `driver.master`, a property it does not
 * document; the metrics read the pool's counts from it (app-metrics.ts) and the shaped reads
 * run their prepared statements on it (shaped-read.ts). Reads, with nothing to step aside to: a
 * different TypeORM logs one warning at boot and fence.spec.ts fails on the upgrade.
 */
export const TYPEORM_PG_POOL: Fence = {
  name: "The read of TypeORM's pg pool (src/common/internals/pg-pool.ts)",
  kind: 'reads',
  writtenFor: { typeorm: '1.1.1' },
};

/** The pg pool a data source's queries take their connections from (undefined before it connects). */
export function poolOf(dataSource: DataSource): Pool | undefined {
  return (dataSource.driver as unknown as { master?: Pool }).master;
}

/*
 * How long a query waits for a connection is seen only around `pool.connect`: pg's pool events
 * tell when a client is handed out ('acquire') or opened ('connect'), never when one was asked
 * for. So the live pool's `connect` is wrapped, relying on TypeORM asking for every connection
 * through it (its callback form, PostgresDriver.obtainMasterConnection) and on pg-pool's own
 * `query` doing the same (the shaped reads). A wrapper of a live object, not a speed path: with
 * another version of either it steps aside (the histogram stays empty) after one warning;
 * test/foundation/metrics.e2e-spec.ts sees it record.
 */
export const POOL_ACQUIRE_TIMER: Fence = {
  name: 'The pool-acquire timer (src/common/internals/pg-pool.ts)',
  kind: 'wrapper',
  writtenFor: { typeorm: '1.1.1', 'pg-pool': '3.14.0' },
};

type Done = (err: Error | undefined, client: PoolClient | undefined, release: (e?: unknown) => void) => void;

/**
 * Wraps `pool.connect` so that every connection asked for calls `startTimer()` and, once the
 * pool hands one over (or fails to), the function it returned.
 */
export function timeConnect(pool: Pool, startTimer: () => () => void): void {
  const connect = pool.connect.bind(pool) as (cb?: Done) => Promise<PoolClient> | undefined;
  (pool as unknown as { connect: (cb?: Done) => unknown }).connect = (cb?: Done) => {
    const end = startTimer();
    if (typeof cb === 'function') {
      return connect((err, client, release) => {
        end();
        cb(err, client, release);
      });
    }
    return connect()!.finally(() => end());
  };
}
