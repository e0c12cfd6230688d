import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { TEST_ADMIN_URL_ENV } from '../support/databases';
import { scaled } from '../support/time-scale';

const exec = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
/** Not copied: what the copy links (node_modules) or makes again. */
const SKIP = new Set(['node_modules', '.git', 'dist', 'coverage', join('test', '.groups')]);

/**
 * The generator cannot rot (docs/modules.md, "Adding a module"): in a copy of the project,
 * `npm run new:module` makes a sample module, and then the type check and the architecture,
 * contract, catalogue, isolation and permission tests pass with the module in them, its own
 * e2e and client specs too. The copy's tests run on this run's PostgreSQL server, in databases of
 * their own.
 */
describe('npm run new:module', () => {
  let copy: string;
  /** The environment of a command in the copy: this run's server, none of this run's jest state. */
  const env = () => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('JEST_') && !k.startsWith('SITEBASE_TEST_')),
    );
    return { ...clean, DATABASE_URL: process.env[TEST_ADMIN_URL_ENV], TEST_GROUPS: '0', FORCE_COLOR: '0' };
  };
  const run = async (cmd: string, args: string[], extra: Record<string, string> = {}) => {
    try {
      const { stdout, stderr } = await exec(cmd, args, {
        cwd: copy,
        env: { ...env(), ...extra },
        maxBuffer: 64 * 1024 * 1024,
      });
      return `${stdout}\n${stderr}`;
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      throw new Error(`${cmd} ${args.join(' ')} failed in the copy:\n${e.stdout ?? ''}\n${e.stderr ?? e.message}`, {
        cause: err,
      });
    }
  };

  beforeAll(() => {
    copy = mkdtempSync(join(tmpdir(), 'sitebase-new-module-'));
    cpSync(ROOT, copy, { recursive: true, filter: (src) => !SKIP.has(relative(ROOT, src)) });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('refuses a reserved name, saying why, and changes nothing', async () => {
    const refused = run('npm', ['run', '-s', 'new:module', '--', 'events']);
    await expect(refused).rejects.toThrow(/"events" is reserved: the outbox's events/);
    await expect(run('npm', ['run', '-s', 'new:module', '--', 'content'])).rejects.toThrow(/src\/content exists/);
    expect(existsSync(join(copy, 'src', 'events'))).toBe(false);
  });

  it(
    'writes a module whose checks pass: types, architecture, contract, catalogue, isolation, permissions',
    async () => {
      const out = await run('npm', ['run', '-s', 'new:module', '--', 'field-notes', '--skip-db']);
      expect(out).toContain('src/field-notes/field-notes.controller.ts');
      expect(readFileSync(join(copy, 'src/app.module.ts'), 'utf8')).toContain('FieldNotesModule,');
      // What --skip-db leaves to do, in one jest run: the SQL snapshot and the document with its client types.
      await run(
        'npx',
        ['jest', 'test/foundation/shaped-reads-sql', 'test/foundation/openapi-contract', 'test/foundation/sdk'],
        {
          UPDATE_SQL_SNAPSHOT: '1',
          UPDATE_OPENAPI_CLIENT: '1',
        },
      );
      expect(readFileSync(join(copy, 'test/fixtures/shaped-reads.sql'), 'utf8')).toContain('-- field notes, anonymous');
      await run('npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']);
      await run('npx', ['eslint', '--max-warnings', '0', 'src/field-notes', 'test/field-notes', 'src/cli']);
      const tests = await run('npx', [
        'jest',
        '--maxWorkers=1',
        'test/field-notes',
        'test/contract.e2e-spec.ts',
        'test/foundation/module-kit',
        'test/foundation/routes',
        'test/foundation/health-docs',
        'test/foundation/key-permissions',
        'test/foundation/tenant-isolation',
        'test/foundation/events-catalog',
        'test/foundation/migrations-generate',
        'test/foundation/shaped-reads-sql',
      ]);
      expect(tests).toMatch(/Summary: \d+ passed, 0 failed/);
    },
    scaled(600_000),
  );
});
