import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { PROOF_CHECKS } from '../../src/cli/new-module/checks';
import { TEST_ADMIN_URL_ENV } from '../support/databases';
import { scaled } from '../support/time-scale';

const exec = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
/** Not copied: what the copy links (node_modules) or makes again. */
const SKIP = new Set(['node_modules', '.git', 'dist', 'coverage', join('test', '.groups')]);

/**
 * The generator cannot rot (docs/modules.md, "Adding a module"): in a copy of the project,
 * `npm run new:module` makes a module of each template, and then the type check, lint, the
 * architecture, contract and permission tests (PROOF_CHECKS) and the modules' own e2e, client
 * and unit specs pass with them in. The copy's tests run on this run's PostgreSQL server, in databases of
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
    // The packages, linked one by one: node_modules/.cache stays the copy's own (the compiled
    // src/ of this run lives in ours, and a run on other sources would replace it).
    mkdirSync(join(copy, 'node_modules'));
    for (const entry of readdirSync(join(ROOT, 'node_modules')))
      if (entry !== '.cache') symlinkSync(join(ROOT, 'node_modules', entry), join(copy, 'node_modules', entry));
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('refuses a reserved name, saying why, and changes nothing', async () => {
    const refused = run('npm', ['run', '-s', 'new:module', '--', 'events']);
    await expect(refused).rejects.toThrow(/"events" is reserved: the outbox's events/);
    await expect(run('npm', ['run', '-s', 'new:module', '--', 'collections'])).rejects.toThrow(
      /src\/collections exists/,
    );
    await expect(run('npm', ['run', '-s', 'new:module', '--', 'content'])).rejects.toThrow(/src\/content exists/);
    expect(existsSync(join(copy, 'src', 'events'))).toBe(false);
  });

  it(
    'writes modules whose checks pass: types, lint, architecture, contract, permissions, their own specs',
    async () => {
      // One module of each template, side by side.
      const crud = await run('npm', ['run', '-s', 'new:module', '--', 'field-notes', '--skip-db']);
      expect(crud).toContain('src/field-notes/field-notes.controller.ts');
      const lifecycle = await run('npm', [
        'run',
        '-s',
        'new:module',
        '--',
        'work-orders',
        '--template',
        'lifecycle',
        '--skip-db',
      ]);
      expect(lifecycle).toContain('src/work-orders/work-order-lifecycle.ts');
      expect(readFileSync(join(copy, 'src/app.module.ts'), 'utf8')).toMatch(/FieldNotesModule,\n\s*WorkOrdersModule,/);
      // What --skip-db leaves to do (the SQL snapshot, the document and its client types) and the
      // kit's checks, in one run: the client specs' types are erased, so they run before tsc.
      const tests = await run(
        'npx',
        [
          'jest',
          '--maxWorkers=1',
          'test/foundation/openapi-contract',
          'test/foundation/sdk',
          'test/field-notes',
          'test/work-orders',
          'src/work-orders',
          ...PROOF_CHECKS,
        ],
        { UPDATE_SQL_SNAPSHOT: '1', UPDATE_OPENAPI_CLIENT: '1' },
      );
      expect(readFileSync(join(copy, 'test/fixtures/shaped-reads.sql'), 'utf8')).toContain('-- field notes, anonymous');
      await run('npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']);
      await run('npx', [
        'eslint',
        '--max-warnings',
        '0',
        'src/field-notes',
        'test/field-notes',
        'src/work-orders',
        'test/work-orders',
      ]);
      expect(tests).toMatch(/Summary: \d+ passed, 0 failed/);
      for (const spec of [
        'test/field-notes/field-notes.e2e-spec.ts',
        'test/field-notes/field-notes.client.e2e-spec.ts',
        'test/work-orders/work-orders.e2e-spec.ts',
        'src/work-orders/work-order-lifecycle.spec.ts',
        'test/foundation/key-permissions.e2e-spec.ts',
      ])
        expect(tests).toMatch(new RegExp(`PASS ${spec}`));
    },
    scaled(600_000),
  );
});
