import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MODULE_CHECKS } from './new-module/checks';
import { KEBAB, moduleNames, ModuleNames, rename, singularOf } from './new-module/names';
import { addMigration, apply, registrations } from './new-module/registrations';
import { renderTemplate, templateFiles, writeNew } from './new-module/render';
import { whyRefused, whyRefusedName } from './new-module/reserved';

const USAGE =
  'usage: npm run new:module -- <name> [--template crud|lifecycle] [--singular <name>] ' +
  '[--description <text>] [--skip-db]\n' +
  '  <name>: the resource in the plural, kebab-case (calendar-events); docs/modules.md, "Adding a module"';

/**
 * `npm run new:module -- <name>`: a module from templates/module, with every registration it needs
 * outside its folder (docs/modules.md, "Adding a module"). Run at the project's root.
 */
function main(argv: string[]): void {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      template: { type: 'string', default: 'crud' },
      singular: { type: 'string' },
      description: { type: 'string' },
      'skip-db': { type: 'boolean', default: false },
    },
  });
  const root = process.cwd();
  const [name] = positionals;
  if (!name || positionals.length > 1) fail(USAGE);
  if (!KEBAB.test(name)) fail(`"${name}" must be kebab-case words starting with letters (calendar-events)`);
  if (!existsSync(join(root, 'templates/module'))) fail('run it at the project root (templates/module is missing)');
  const taken = whyRefusedName(root, name);
  if (taken) fail(`refused: ${taken}`);
  if (values.template !== 'crud' && values.template !== 'lifecycle')
    fail(`--template is crud or lifecycle, not "${values.template}"`);
  const one = values.singular ?? singularOf(name);
  if (!one) fail(`"${name}" does not end like an English plural: give its singular with --singular`);
  if (!KEBAB.test(one) || one === name) fail(`the singular "${one}" must be kebab-case and differ from "${name}"`);
  const names = moduleNames(name, one);
  const refused = whyRefused(root, names);
  if (refused) fail(`refused: ${refused}`);

  // Its reads are for anyone (optional-key), so publishable keys read them too (docs/modules.md).
  const flags = { lifecycle: values.template === 'lifecycle', publishable: true };
  const dir = join(root, 'templates/module');
  const written: string[] = [];
  for (const file of templateFiles(dir, flags)) {
    if (file === 'migration.ts' || file === 'docs/events.md') continue;
    const target = file.replaceAll('sample-things', names.kebab).replaceAll('sample-thing', names.kebabOne);
    writeNew(join(root, target), renderTemplate(dir, file, names, flags));
    written.push(target);
  }
  written.push(addMigration(root, renderTemplate(dir, 'migration.ts', names, flags), names, Date.now()));
  const events = join(root, 'docs/events.md');
  writeFileSync(
    events,
    readFileSync(events, 'utf8').trimEnd() + '\n' + renderTemplate(dir, 'docs/events.md', names, flags),
  );
  const description = values.description ?? `${names.title} of a site`;
  const made = registrations({ description, publishable: flags.publishable, lifecycle: flags.lifecycle });
  for (const r of made) apply(root, r, names);
  addModulePage(root, names, description);

  const changed = [
    ...written,
    ...new Set(made.map((r) => r.file)),
    'src/database/migrations/index.ts',
    'docs/events.md',
    'docs/modules.md',
  ];
  run(root, 'npx', ['prettier', '--log-level', 'warn', '--write', ...changed]);
  console.log(`Wrote ${written.length} files:\n${written.map((f) => `  ${f}`).join('\n')}`);
  console.log(
    `Registered:\n${made
      .filter((r) => r.what)
      .map((r) => `  ${r.file}: ${rename(r.what, names)}`)
      .join('\n')}\n  docs/events.md: its events' sections\n  docs/modules.md: its row`,
  );
  const finish: Array<[string, string, string[], Record<string, string>]> = [
    [
      'the SQL snapshot of its reads',
      'npx',
      ['jest', 'test/foundation/shaped-reads-sql'],
      { UPDATE_SQL_SNAPSHOT: '1' },
    ],
    ['the OpenAPI document and the client types', 'npm', ['run', '-s', 'openapi:client'], {}],
  ];
  if (values['skip-db']) {
    console.log('\nNot run (--skip-db); run them before the tests:');
    for (const [what, cmd, args, env] of finish)
      console.log(
        `  ${Object.entries(env)
          .map(([k, v]) => `${k}=${v} `)
          .join('')}${cmd} ${args.join(' ')}   # ${what}`,
      );
  } else
    for (const [what, cmd, args, env] of finish) {
      console.log(`\nUpdating ${what}: ${cmd} ${args.join(' ')}`);
      run(root, cmd, args, env);
    }
  console.log(
    `\nNext: write its own fields and rules (docs/modules.md, "Adding a module"), then\n` +
      `  npm run typecheck && npx jest test/${names.kebab} ${MODULE_CHECKS.join(' ')}\n` +
      'and then npm test.',
  );
}

/** A row for the module in docs/modules.md's table of modules, after the last one. */
function addModulePage(root: string, names: ModuleNames, description: string): void {
  const path = join(root, 'docs/modules.md');
  const lines = readFileSync(path, 'utf8').split('\n');
  const last = lines.findIndex((l) => l.startsWith('| `v1` |'));
  if (last < 0) throw new Error('docs/modules.md has no `v1` row to add the module after');
  lines.splice(last + 1, 0, `| \`${names.kebab}\` | ${description} | [${names.kebab}.md](${names.kebab}.md) |`);
  writeFileSync(path, lines.join('\n'));
}

function run(root: string, cmd: string, args: string[], env: Record<string, string> = {}): void {
  execFileSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
}

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

try {
  main(process.argv.slice(2));
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
