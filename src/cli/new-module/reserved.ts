import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModuleNames } from './names';

/** Names that mean something else here, with why: a module of that name would be mistaken for it. */
const RESERVED: Record<string, string> = {
  events:
    "the outbox's events: src/common/outbox (recordEvent, *.events.ts), docs/events.md, the account deletion " +
    "preview's `events` and test/support/events.ts; call it e.g. calendar-events",
  common: 'src/common is the framework every module shares',
  config: 'src/config holds the settings classes',
  database: 'src/database holds the migrations and the query layer',
  cli: 'src/cli holds the command-line tools',
  sites: 'sites are the tenants (src/account, /api/v2/sites)',
  site: 'sites are the tenants (src/account, /api/v2/sites)',
  health: 'the liveness and readiness probes (src/health)',
  docs: 'Swagger UI and the document are served under /docs',
  files: 'local media files are served under /files',
  v1: 'the v1 adapters (src/v1)',
  v2: 'the API version in every path',
  api: 'every path starts with /api',
  support: 'test/support holds the shared test helpers',
  fixtures: 'test/fixtures holds the shared test data',
  generated: 'test/generated holds the generated client types',
  templates: 'templates/ holds what this command copies',
  permissions: 'the key permissions (src/common/auth/permissions.ts)',
  problems: 'the problem types (src/common/errors)',
};

/**
 * Why `names` cannot be a new module of the project at `root`, or null: a reserved word, or a
 * folder, page, permission group, path segment, table or event prefix that exists.
 */
export function whyRefused(root: string, names: ModuleNames): string | null {
  for (const name of [names.kebab, names.kebabOne])
    if (RESERVED[name]) return `"${name}" is reserved: ${RESERVED[name]}`;
  const taken: Array<[string, boolean]> = [
    [`src/${names.kebab} exists`, existsSync(join(root, 'src', names.kebab))],
    [`test/${names.kebab} exists`, existsSync(join(root, 'test', names.kebab))],
    [`docs/${names.kebab}.md exists`, existsSync(join(root, 'docs', `${names.kebab}.md`))],
    [`test/support/${names.kebab}.ts exists`, existsSync(join(root, 'test', 'support', `${names.kebab}.ts`))],
  ];
  for (const [why, yes] of taken) if (yes) return why;
  const permissions = readFileSync(join(root, 'src/common/auth/permissions.ts'), 'utf8');
  if (permissions.includes(`'${names.kebab}',`)) return `"${names.kebab}" is a permission group already`;
  const source = allSource(join(root, 'src'));
  if (source.some((text) => text.includes(`/:siteName/${names.kebab}'`) || text.includes(`/:siteName/${names.kebab}/`)))
    return `/api/v2/sites/{siteName}/${names.kebab} is a path of the API already`;
  if (source.some((text) => text.includes(`@Entity('${names.snake}')`))) return `the table ${names.snake} exists`;
  const events = readFileSync(join(root, 'docs/events.md'), 'utf8');
  if (events.includes(`### ${names.snakeOne}.`)) return `events named ${names.snakeOne}.* exist (docs/events.md)`;
  return null;
}

function allSource(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'));
}
