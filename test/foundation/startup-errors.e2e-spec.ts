import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { entryCommand } from '../support/compiled-entry';
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

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `run` over `items`, at most `width` at a time, results in order. */
async function inTurn<T, R>(items: T[], width: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await run(items[i]);
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return results;
}

describe('start-up errors are one line each', () => {
  let port: number;
  beforeAll(async () => (port = await freePort()));

  const start = (env: Record<string, string | undefined>) =>
    runEntry('src/main.ts', [], {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      // As at a terminal: the lines as a person reads them (JSON lines: the last test).
      LOG_FORMAT: 'pretty',
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
      'Sitebase could not start: Invalid setting SMTP_URL=(value hidden): use an smtp:// or smtps:// URL such as smtp://user:password@mail.example.com:587.',
    ]);
    expect(run.stderr + run.stdout).not.toContain('hunter2');
  }, 60_000);

  /**
   * Issue 42, row 8: `BODY_LIMIT=huge` started the server with no body limit (raw-body read the
   * string with `bytes`, which gave null). Every setting is read strictly (src/config/
   * settings.spec.ts feeds each one its wrong values in-process); these run the real entry, a
   * few at a time. DATABASE_URL points at a closed port: a start that got past its settings
   * would end on another line, not hang.
   */
  it('wrong values of every kind: exit 1 and one line naming the setting, before anything starts', async () => {
    const closed = 'postgres://sitebase@127.0.0.1:1/none';
    const cases: [Record<string, string>, string][] = [
      [{ BODY_LIMIT: 'huge' }, 'BODY_LIMIT="huge": use a size from 1kb to 100mb'],
      [{ BODY_LIMIT: '10abc' }, 'BODY_LIMIT="10abc": use a size'],
      [{ BODY_LIMIT: '0' }, 'BODY_LIMIT="0": use a size'],
      [{ PORT: '1e3' }, 'PORT="1e3": use a whole number from 0 to 65535'],
      [{ RATE_LIMIT_TTL_MS: '0x10000' }, 'RATE_LIMIT_TTL_MS="0x10000": use a whole number'],
      [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY="10.0.0.0/33": use false, true, a hop count'],
      [{ MEDIA_THUMBNAIL_WIDTHS: '150,,600' }, 'MEDIA_THUMBNAIL_WIDTHS="150,,600": use at most 10 whole numbers'],
      [{ MAIL_FROM: 'a@b.test, c@d.test' }, 'MAIL_FROM="a@b.test, c@d.test": use one address'],
      [
        { PUBLIC_BASE_URL: 'https://api.example.com/?x=1' },
        'PUBLIC_BASE_URL="https://api.example.com/?x=1": use an http(s) URL',
      ],
      [{ DATABASE_URL: 'huge' }, 'DATABASE_URL=(value hidden): use a postgres:// URL'],
    ];
    const runs = await inTurn(cases, 2, ([env]) => start({ DATABASE_URL: closed, ...env }));
    expect(runs.map((run) => ({ code: run.code, stderr: run.stderr, stdout: run.stdout }))).toEqual(
      cases.map(([, line]) => ({
        code: 1,
        stderr: expect.stringMatching(
          new RegExp(`^Sitebase could not start: Invalid setting ${escape(line)}[^\\n]*\\.\\n$`),
        ),
        stdout: '',
      })),
    );
  }, 120_000);

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

  /**
   * Issue 47, row 5: on a Node that package.json's `engines` refuses (here Node 20, as the entry
   * would see it), the start is refused in one line before anything loads: a wrong setting
   * given beside it is not even read.
   */
  it('an unsupported Node: one line naming the version to install, before anything else', () => {
    const { command, args } = entryCommand('src/main.ts');
    const run = spawnSync(
      command,
      [
        '-e',
        `Object.defineProperty(process.versions, 'node', { value: '20.19.0' }); require(${JSON.stringify(args[0])});`,
      ],
      { cwd: join(__dirname, '..', '..'), env: { ...process.env, PORT: 'eighty' }, encoding: 'utf8' },
    );
    expect([run.status, run.stdout, run.stderr]).toEqual([
      1,
      '',
      'Sitebase needs Node 22.13+ or 24.11+ (package.json "engines"); this is Node 20.19.0. Install Node 22.23.3 (the version in .nvmrc; with nvm: nvm install) and run it again.\n',
    ]);
  }, 60_000);
  it('where the logs are JSON (LOG_FORMAT=json, or auto away from a terminal), each reason is a JSON line', async () => {
    const run = await start({ PORT: 'eighty', JOBS_ENABLED: 'maybe', DATABASE_URL: undefined, LOG_FORMAT: 'auto' });
    expect(run.code).toBe(1);
    expect(
      run.stderr
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([
      expect.objectContaining({
        level: 50,
        msg: expect.stringMatching(/^Sitebase could not start: Invalid setting PORT="eighty"/),
      }),
      expect.objectContaining({
        level: 50,
        msg: expect.stringMatching(/^Sitebase could not start: Invalid setting JOBS_ENABLED/),
      }),
    ]);
  }, 60_000);
});
