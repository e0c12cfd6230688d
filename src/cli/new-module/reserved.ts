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
 * Why the module `name` (kebab-case) cannot be added to the project at `root`, or null: a
 * reserved word, or a folder, page, permission group or path segment that exists.
 */
export function whyRefusedName(root: string, name: string): string | null {
  if (RESERVED[name]) return `"${name}" is reserved: ${RESERVED[name]}`;
  const taken: Array<[string, boolean]> = [
    [`src/${name} exists`, existsSync(join(root, 'src', name))],
    [`test/${name} exists`, existsSync(join(root, 'test', name))],
    [`docs/${name}.md exists`, existsSync(join(root, 'docs', `${name}.md`))],
    [`test/support/${name}.ts exists`, existsSync(join(root, 'test', 'support', `${name}.ts`))],
  ];
  for (const [why, yes] of taken) if (yes) return why;
  const permissions = readFileSync(join(root, 'src/common/auth/permissions.ts'), 'utf8');
  if (permissions.includes(`'${name}',`)) return `"${name}" is a permission group already`;
  if (
    allSource(join(root, 'src')).some(
      (text) => text.includes(`/:siteName/${name}'`) || text.includes(`/:siteName/${name}/`),
    )
  )
    return `/api/v2/sites/{siteName}/${name} is a path of the API already`;
  return null;
}

/** Why the names of a module would clash, or null: its singular reserved, its table or its events' prefix taken. */
export function whyRefused(root: string, names: ModuleNames): string | null {
  if (RESERVED[names.kebabOne]) return `"${names.kebabOne}" is reserved: ${RESERVED[names.kebabOne]}`;
  const source = allSource(join(root, 'src'));
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
