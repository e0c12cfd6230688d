import { freePort, TEST_ADMIN_URL_ENV } from '../support/databases';
import { runEntry } from '../support/entry';

/**
 * Issue 31, row 5: a start that cannot happen says why in one line on stderr and exits 1: a
 * wrong setting names the variable, its value and what it accepts; an unreachable DATABASE_URL
 * names what was tried (host, port and database, never the password), once, after a short
 * wait rather than TypeORM's ten retries. Both run the real entry point, src/main.ts.
 */

/** Stack frames ("    at fn (file:line)") have no place in what a person is told. */
const STACK_FRAME = /^\s+at /m;

describe('start-up errors are one line each', () => {
  let port: number;
  beforeAll(async () => (port = await freePort()));

  const start = (env: Record<string, string | undefined>) =>
    runEntry('src/main.ts', [], {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      BOOTSTRAP_API_KEY: undefined,
      ...env,
    });

  it('a wrong setting: the variable, the value and what is allowed, without a stack', async () => {
    const run = await start({ JOBS_ENABLED: 'maybe', DATABASE_URL: undefined });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'Sitebase could not start: Invalid setting JOBS_ENABLED="maybe": use true or false (also 1/0, yes/no, on/off).\n',
    );
    expect(run.stdout).toBe('');
  }, 60_000);

  it('several wrong settings: one line each, a secret named but not shown', async () => {
    const run = await start({
      PORT: 'eighty',
      SMTP_URL: 'http://mailer:hunter2@mail.example.com',
      DATABASE_URL: undefined,
    });
    expect(run.code).toBe(1);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      'Sitebase could not start: Invalid setting PORT="eighty": use a whole number from 0 to 65535.',
      'Sitebase could not start: Invalid setting SMTP_URL=(value hidden): SMTP_URL must be an smtp:// or smtps:// URL.',
    ]);
    expect(run.stderr + run.stdout).not.toContain('hunter2');
  }, 60_000);

  it('an unreachable DATABASE_URL: one line naming host, port and database, no password, no retry lines', async () => {
    const run = await start({ DATABASE_URL: 'postgres://u:secret@127.0.0.1:1/x' });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'Sitebase could not start: Cannot reach PostgreSQL at 127.0.0.1:1/x (DATABASE_URL): connection refused (ECONNREFUSED), tried for 5 s. Start it, fix DATABASE_URL, or unset DATABASE_URL to use the embedded PostgreSQL.\n',
    );
    // Before: ten "Unable to connect to the database. Retrying" log lines with stacks on stdout,
    // then Nest's own log of the error, then this line.
    expect(run.stdout).toBe('');
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(run.stderr + run.stdout).not.toContain('secret');
  }, 60_000);

  it('a database that refuses the user: one line, at once', async () => {
    const url = new URL(process.env[TEST_ADMIN_URL_ENV]!);
    url.username = 'no_such_role_31';
    url.password = 'secret';
    const run = await start({ DATABASE_URL: url.toString() });
    expect(run.code).toBe(1);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^Sitebase could not start: PostgreSQL at [^ ]+ refused the credentials in DATABASE_URL\./),
    ]);
    expect(run.stdout).toBe('');
    expect(run.stderr).not.toContain('secret');
  }, 60_000);
});
