import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, normalize, relative } from 'node:path';
import { DataSource } from 'typeorm';
import { AccountDataRegistry } from '../../src/common/deletion/account-data.registry';
import { eventCatalog } from '../../src/common/outbox/events';
import { startApp, TestApp } from '../support/app';

const SRC = join(__dirname, '../../src');

/** Tables that hold an account's or a site's rows but outlive the purge, and why. */
const RETAINED: Record<string, string> = {
  accounts: 'removed by the purge job itself, after every owner has run',
  account_deletions: 'the record that the deletion happened',
};

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'fixtures' ? [] : sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The feature modules: src/<name>/<name>.module.ts, the foundation (common, config, database) aside. */
const FOUNDATION = ['common', 'config', 'database'];
const MODULES = readdirSync(SRC).filter(
  (name) =>
    !FOUNDATION.includes(name) &&
    statSync(join(SRC, name)).isDirectory() &&
    readdirSync(join(SRC, name)).includes(`${name}.module.ts`),
);

/**
 * What one module may import of another (docs/modules.md): its services (with the types they
 * re-export), its events, its settings class (the registry lists it), the request DTOs its
 * services take, and its Nest module.
 */
const PUBLIC_FILE = /(\.service|\.events|\.config|\.module)\.ts$|\/dto\/[^/]+\.dto\.ts$/;

/**
 * Files that may build a query besides `*.repository.ts` and src/database (docs/modules.md, "One
 * way to the database"): the framework's query modules, each the one statement of its concern.
 */
const FRAMEWORK_QUERIES: Record<string, string> = {
  'common/outbox/record-event.ts': 'the outbox insert every module makes in its own transaction',
  'common/slugs/slugs.ts': 'the free-slug probe of every entity with a slug',
  'common/deletion/account-data.registry.ts': 'the purge of the tables the data owners declare',
  'common/rate-limit/rate-limit.store.ts': "the limiter's counters: the store is its table's repository",
  'common/queue/pgboss-v10.ts': "the one-off move of pg-boss v10's schema and jobs",
  'common/crypto/server-keys.ts': 'the server_secrets table, read once per purpose',
  'common/metrics/state-metrics.ts': 'the gauges, read across the tables of several modules',
  'common/internals/shaped-read.ts': 'the fenced fast path of ShapedReads itself, and its plain path beside it',
};

/** What building a query looks like in code (comments are not code). */
const QUERY_BUILDING: Array<[RegExp, string]> = [
  [/\bcreateQueryBuilder\b/, 'builds a query builder'],
  [/\bsql\s*[<(]/, 'runs sql()'],
  [/\.query\s*[<(]/, 'runs query()'],
  [/\bShapedReads\b/, 'reads through ShapedReads'],
  [/\.getRaw(?:Many|One|AndEntities)\b/, 'reads raw rows'],
  [/\bRaw\s*\(/, 'writes SQL into find options with Raw()'],
  [/\bcreateQueryRunner\b/, 'takes a query runner'],
];

/** Each line of `text` that builds a query, with what it does. */
function queriesIn(text: string): Array<{ line: number; what: string }> {
  const code = text
    .replace(/^\s*\/\*[\s\S]*?\*\//gm, (comment) => comment.replace(/[^\n]/g, ''))
    .replace(/(^|\s)\/\/.*$/gm, '$1');
  return code
    .split('\n')
    .flatMap((source, i) =>
      QUERY_BUILDING.filter(([pattern]) => pattern.test(source)).map(([, what]) => ({ line: i + 1, what })),
    );
}

describe('The module kit (docs/modules.md)', () => {
  it('no two classes of src share a name: OpenAPI schemas are named after DTO classes, and one would hide the other', () => {
    const seen = new Map<string, string[]>();
    for (const file of sourceFiles())
      for (const [, name] of readFileSync(file, 'utf8').matchAll(/^export (?:abstract )?class (\w+)/gm))
        seen.set(name, [...(seen.get(name) ?? []), relative(SRC, file)]);
    const clashes = [...seen]
      .filter(([, files]) => files.length > 1)
      .map(
        ([name, files]) => `${name} is declared in ${files.join(' and ')}: rename one (prefix it with its resource)`,
      );
    expect(clashes).toEqual([]);
  });

  it('modules reach each other only through services, events, request DTOs and Nest modules', () => {
    expect(MODULES).toEqual(expect.arrayContaining(['content', 'media', 'collections', 'v1']));
    const leaks: string[] = [];
    for (const file of sourceFiles()) {
      const rel = relative(SRC, file);
      const own = rel.split('/')[0];
      for (const m of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
        const target = relative(SRC, normalize(join(dirname(file), m[1])));
        const module = target.split('/')[0];
        if (module === own || !MODULES.includes(module)) continue;
        if (!MODULES.includes(own) && target.endsWith('.module')) continue; // app and auth wiring
        if (!PUBLIC_FILE.test(`${target}.ts`))
          leaks.push(
            `${rel} imports ${target}: reach ${module} through its service, events, dto/*.dto.ts or module ` +
              'file, or move what both modules need into src/common (docs/modules.md)',
          );
      }
    }
    expect(leaks).toEqual([]);
  });

  it('only repositories build queries: services, jobs, subscribers, owners and helpers call them', () => {
    // The detector itself: a planted builder and sql() are found, a comment and a lock are not.
    const planted = [
      '// em.createQueryBuilder() in a comment',
      'await sql(em, `SELECT 1`);',
      'await namedXactLock(em, k);',
    ];
    expect(queriesIn(planted.join('\n'))).toEqual([{ line: 2, what: 'runs sql()' }]);
    const found: string[] = [];
    for (const file of sourceFiles()) {
      const rel = relative(SRC, file);
      if (rel.startsWith('database/') || rel.endsWith('.repository.ts') || rel in FRAMEWORK_QUERIES) continue;
      const folder = dirname(rel);
      for (const { line, what } of queriesIn(readFileSync(file, 'utf8')))
        found.push(
          `src/${rel}:${line} ${what}: move it into a method of a repository in src/${folder}/ ` +
            `(e.g. ${basename(folder)}.repository.ts) named for what it answers, and call that ` +
            '(docs/modules.md, "Data access")',
        );
    }
    expect(found).toEqual([]);
    // The list above stays true: a file that no longer builds a query leaves it.
    const stale = Object.keys(FRAMEWORK_QUERIES).filter(
      (rel) => queriesIn(readFileSync(join(SRC, rel), 'utf8')).length === 0,
    );
    expect(stale.map((rel) => `${rel} builds no query any more: remove it from FRAMEWORK_QUERIES above`)).toEqual([]);
  });

  let t: TestApp;

  beforeAll(async () => (t = await startApp()));
  afterAll(() => t.close());

  it('test files share helpers only through test/support (and the generated client types)', () => {
    const TEST = join(__dirname, '..');
    const leaks: string[] = [];
    for (const file of sourceFiles(TEST)) {
      const folder = relative(TEST, dirname(file)).split('/')[0];
      for (const m of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
        const target = relative(TEST, normalize(join(dirname(file), m[1])));
        if (target.startsWith('..')) continue; // src/
        const top = target.split('/')[0];
        if (top !== 'support' && top !== 'generated' && top !== folder)
          leaks.push(`${relative(TEST, file)} imports ${target}: move what it shares into test/support/`);
      }
    }
    expect(leaks).toEqual([]);
  });

  it('every table of a site or an account has a data owner that purges it', () => {
    const db = t.app.get(DataSource);
    const owned = new Map<string, string>();
    for (const owner of t.app.get(AccountDataRegistry).list()) {
      for (const entity of owner.entities) owned.set(db.getMetadata(entity).tableName, owner.name);
    }
    const scoped = db.entityMetadatas
      .filter((m) => m.columns.some((c) => c.databaseName === 'site_id' || c.databaseName === 'account_id'))
      .map((m) => m.tableName);
    expect(scoped.length).toBeGreaterThan(8);
    const orphans = scoped.filter((table) => !owned.has(table) && !(table in RETAINED));
    expect(
      orphans.map(
        (table) =>
          `${table} has a site_id or account_id but no data owner: add it to its module's ` +
          '<module>-data.owner.ts (tablesOwner(name, order, tables), a provider of the module; docs/modules.md), ' +
          'or, if it must outlive the purge, to RETAINED above with why',
      ),
    ).toEqual([]);
  });

  it('every event is declared in the events file of the module that emits it', () => {
    const catalog = [...eventCatalog().values()];
    expect(catalog.map((e) => e.name)).toEqual(expect.arrayContaining(['content.published', 'media.created']));
    const misplaced: string[] = [];
    for (const file of sourceFiles()) {
      const text = readFileSync(file, 'utf8');
      const rel = relative(SRC, file);
      for (const m of text.matchAll(/defineEvents\('([a-z-]+)'/g)) {
        // A module's events live in src/<module>/<module>.events.ts.
        if (rel !== `${m[1]}/${m[1]}.events.ts`)
          misplaced.push(`${rel} declares ${m[1]} events: move them to src/${m[1]}/${m[1]}.events.ts`);
      }
      for (const m of text.matchAll(/recordEvent\(\s*\w+,\s*[^,]+,\s*([^,]+),/g)) {
        const arg = m[1].trim();
        if (/^['"`]/.test(arg))
          misplaced.push(
            `${rel} records an event named by a string: ${arg}: declare it in its module's events file ` +
              "(defineEvents('<module>', { … })) and pass that declaration",
          );
      }
    }
    expect(misplaced).toEqual([]);
    const undescribed = catalog
      .filter((e) => e.description.length <= 10)
      .map((e) => `${e.name}: its description (event(name, description) in its events file) says what it means`);
    expect(undescribed).toEqual([]);
  });
});
