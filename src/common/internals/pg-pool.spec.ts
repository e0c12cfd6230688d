import type { Pool } from 'pg';
import { timeConnect } from './pg-pool';

/** A pool whose connect answers when `hand()` is called, in pg-pool's two forms. */
function fakePool() {
  const waiting: Array<(err?: Error) => void> = [];
  const client = { id: 'client' };
  const pool = {
    connect(cb?: (err: Error | undefined, c: unknown, release: () => void) => void) {
      if (cb) {
        waiting.push((err) => cb(err, err ? undefined : client, () => undefined));
        return undefined;
      }
      return new Promise((resolve, reject) => waiting.push((err) => (err ? reject(err) : resolve(client))));
    },
  };
  return { pool: pool as unknown as Pool, hand: (err?: Error) => waiting.shift()!(err), client };
}

describe('the pool-acquire timer', () => {
  it('times each wait, from asking to being handed a connection, in both of connect’s forms', async () => {
    const { pool, hand, client } = fakePool();
    const events: string[] = [];
    timeConnect(pool, () => {
      events.push('asked');
      return () => events.push('handed');
    });
    const got = jest.fn();
    pool.connect((err, c) => got(err, c));
    const promised = pool.connect();
    expect(events).toEqual(['asked', 'asked']);
    hand();
    expect(events).toEqual(['asked', 'asked', 'handed']);
    expect(got).toHaveBeenCalledWith(undefined, client);
    hand();
    await expect(promised).resolves.toBe(client);
    expect(events).toHaveLength(4);
  });

  it('ends the timer when the pool fails, and passes the error on', async () => {
    const { pool, hand } = fakePool();
    const ended = jest.fn();
    timeConnect(pool, () => ended);
    const promised = pool.connect();
    hand(new Error('too many clients'));
    await expect(promised).rejects.toThrow('too many clients');
    expect(ended).toHaveBeenCalledTimes(1);
  });
});
