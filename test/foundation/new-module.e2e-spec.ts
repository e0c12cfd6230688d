/** @runsLong: it runs another jest and tsc, on a copy of the project (test/support/groups.js). */
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { PROOF_CHECKS } from '../../src/cli/new-module/checks';
import { moduleNames } from '../../src/cli/new-module/names';
import { whyRefused, whyRefusedName } from '../../src/cli/new-module/reserved';
import { TEST_ADMIN_URL_ENV } from '../support/databases';
import { scaled } from '../support/time-scale';

const exec = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
/** Not copied: what the copy links (node_modules) or makes again. */
const SKIP = new Set(['node_modules', '.git', 'dist', 'coverage', join('test', '.groups')]);
/** The test files the generator edits (the rest of its registrations are in src/ and test/support). */
const EDITED_TESTS = [
  'test/foundation/events-catalog.e2e-spec.ts',
  'test/foundation/tenant-isolation.e2e-spec.ts',
  'test/foundation/shaped-reads-sql.e2e-spec.ts',
];
const MODULE_TESTS = ['test/field-notes/**/*', 'test/work-orders/**/*'];

/**
 * The generator cannot rot (docs/modules.md, "Adding a module"): in a copy of the project,
 * `npm run new:module` makes a module of each template, and then the type check, lint, the
 * architecture, contract and permission tests (PROOF_CHECKS) and the lifecycle module's own e2e,
 * client and unit specs pass with them in. The copy's tests run on this run's PostgreSQL server, in databases of
 * their own.
 */
describe('npm run new:module', () => {
  let copy: string;
  /** The environment of a command in the copy: this run's server, none of this run's jest state. */
  const env = () => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('JEST_') && !k.startsWith('SITEBASE_TEST_')),
    );
    // Its tests start no server process: its jest compiles no copy of src/ for them.
    return {
      ...clean,
      DATABASE_URL: process.env[TEST_ADMIN_URL_ENV],
      TEST_GROUPS: '0',
      FORCE_COLOR: '0',
      SITEBASE_TEST_NO_PROCESSES: '1',
    };
  };
  // At low priority, as npm test runs its static checks: the copy's jest and tsc take the CPU the
  // run leaves, and never starve a test beside them that measures latency or renders on a budget.
  const run = async (cmd: string, args: string[], extra: Record<string, string> = {}) => {
    try {
      const { stdout, stderr } = await exec('nice', ['-n', '10', cmd, ...args], {
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

  it('refuses a reserved or taken name, saying why, and changes nothing', async () => {
    const refused = run('npm', ['run', '-s', 'new:module', '--', 'events']);
    await expect(refused).rejects.toThrow(/"events" is reserved: the outbox's events/);
    expect(existsSync(join(copy, 'src', 'events'))).toBe(false);
    expect(whyRefusedName(copy, 'collections')).toBe('src/collections exists');
    expect(whyRefusedName(copy, 'content')).toBe('src/content exists');
    expect(whyRefusedName(copy, 'categories')).toBe('/api/v2/sites/{siteName}/categories is a path of the API already');
    expect(whyRefusedName(copy, 'api-keys')).toBe('src/api-keys exists');
    expect(whyRefused(copy, moduleNames('content-items', 'content-item'))).toBe('the table content_items exists');
    expect(whyRefused(copy, moduleNames('outboxes', 'collection'))).toBe(
      'events named collection.* exist (docs/events.md)',
    );
    expect(whyRefused(copy, moduleNames('sender-domains', 'sender-domain'))).toBe('the table sender_domains exists');
    expect(whyRefusedName(copy, 'calendar-events')).toBeNull();
  });

  it(
    'writes modules whose checks pass: types, lint, architecture, contract, permissions, their own specs',
    async () => {
      // One module of each template, side by side; the lifecycle one's specs run (it has the CRUD
      // one's and more), the CRUD one is type-checked, linted and in every check.
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
          'test/work-orders',
          'src/work-orders',
          ...PROOF_CHECKS,
        ],
        // The SQL snapshot and the client types (test/generated), as npm run openapi:client writes
        // them; the permission walk over the new modules' paths (the rest is walked on the real tree).
        {
          UPDATE_SQL_SNAPSHOT: '1',
          UPDATE_OPENAPI_CLIENT: '1',
          PROOF_ONLY_PATHS: ['field-notes', 'work-orders'].map((m) => `/api/v2/sites/{siteName}/${m}`).join(),
        },
      );
      expect(readFileSync(join(copy, 'test/fixtures/shaped-reads.sql'), 'utf8')).toContain('-- field notes, anonymous');
      // The types of everything the modules and their registrations reach: src/, the test support
      // and the test files they are in (the other specs cannot see them: about half of tsc's work).
      writeFileSync(
        join(copy, 'tsconfig.proof.json'),
        JSON.stringify({
          extends: './tsconfig.json',
          compilerOptions: { incremental: false },
          include: [
            'src/**/*',
            'ormconfig.ts',
            'test/support/**/*',
            'test/generated/**/*',
            ...EDITED_TESTS,
            ...MODULE_TESTS,
          ],
        }),
      );
      await run('npx', ['tsc', '-p', 'tsconfig.proof.json', '--noEmit']);
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
        'test/work-orders/work-orders.e2e-spec.ts',
        'test/work-orders/work-orders.client.e2e-spec.ts',
        'src/work-orders/work-order-lifecycle.spec.ts',
        'test/foundation/key-permissions.e2e-spec.ts',
      ])
        expect(tests).toMatch(new RegExp(`PASS ${spec}`));
    },
    scaled(600_000),
  );
});
