// First: an unsupported Node is refused before anything else loads.
import '../node-check';
import 'reflect-metadata';
import 'dotenv/config';
import { parseArgs } from 'node:util';
import type { loadConfigs as LoadConfigs } from '../config/configs';
import type { resolveSharedDatabase as ResolveSharedDatabase } from '../database/resolve-database';
import type { KeyCommand, runKeyCommand as RunKeyCommand } from './key-command';
import { connectError, embeddedDatabaseError, StartupError } from '../startup-errors';

/**
 * `npm run key -- <command>`: API keys for the operator, against the database the server uses
 * (DATABASE_URL, or the embedded one, running or not). A key that was lost cannot be shown
 * again, only replaced: `create` mints one and prints it once (the key alone on stdout, so
 * `KEY=$(npm run -s key -- create --site demo)` works; what it is, on stderr).
 */
const USAGE = `Usage: npm run key -- <command> --site <site name>
  create --site demo [--name "Laptop"] [--only-site] [--permissions content:read,media:read]
         [--expires 2027-01-01T00:00:00Z] [--publishable [--origins https://www.example.com]
         [--rate-limit 6000]]
      a new key for the account that owns the site, printed once; it reaches every site of
      the account (as the first start's key does), or with --only-site that site alone. As
      POST /api/v2/api-keys: --permissions (comma-separated; absent: everything), --expires
      (an RFC 3339 time; absent: never), --publishable (sb_pub_, the published reads, for a
      browser), whose --origins (comma-separated; absent: any) and --rate-limit (a minute)
  list --site demo
      the account's live keys: id, name, the key's first characters, reach, permissions,
      last use, expiry, and a rolled key's previous secret while it still works
  revoke <id> --site demo
      revokes a key of that account (not its last key reaching every site)`;

class UsageError extends StartupError {}

const OPTIONS = {
  site: { type: 'string' },
  name: { type: 'string' },
  'only-site': { type: 'boolean' },
  permissions: { type: 'string' },
  expires: { type: 'string' },
  publishable: { type: 'boolean' },
  origins: { type: 'string' },
  'rate-limit': { type: 'string' },
} as const;
type Option = keyof typeof OPTIONS;
const CREATE_ONLY: Option[] = ['name', 'only-site', 'permissions', 'expires', 'publishable', 'origins', 'rate-limit'];

/** A comma-separated list as the API's array (its validation says what is wrong in it). */
const list = (text: string | undefined) => (text === undefined ? undefined : text.split(',').map((v) => v.trim()));

/**
 * The options, read leniently and then checked here: Node's strict parser answers an unknown
 * option with a paragraph about positionals; this names the option, in one line.
 */
function options(argv: string[]) {
  const { values, positionals, tokens } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false,
    tokens: true,
    options: OPTIONS,
  });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (!Object.hasOwn(OPTIONS, token.name)) throw new UsageError(`Unknown option "${token.rawName}".`);
    const type = OPTIONS[token.name as Option].type;
    if (type === 'string' && token.value === undefined) throw new UsageError(`${token.rawName} needs a value.`);
    if (type === 'boolean' && token.value !== undefined) throw new UsageError(`${token.rawName} takes no value.`);
  }
  return {
    values: values as { [K in Option]?: K extends 'only-site' | 'publishable' ? boolean : string },
    positionals,
  };
}

function parse(argv: string[]): KeyCommand {
  const { values, positionals } = options(argv);
  const [command, ...rest] = positionals;
  if (command !== 'create' && command !== 'list' && command !== 'revoke')
    throw new UsageError(command ? `Unknown command "${command}".` : 'Name a command.');
  const site = values.site;
  if (!site) throw new UsageError(`${command} needs --site <site name>.`);
  const misplaced = command === 'create' ? undefined : CREATE_ONLY.find((o) => values[o] !== undefined);
  if (misplaced) throw new UsageError(`--${misplaced} is an option of create, not of ${command}.`);
  if (command === 'revoke') {
    if (rest.length !== 1 || !/^[1-9]\d{0,15}$/.test(rest[0]))
      throw new UsageError('revoke needs the id of one key (npm run key -- list --site … shows them).');
    return { command, site, id: Number(rest[0]) };
  }
  if (rest.length > 0) throw new UsageError(`Unexpected "${rest.join(' ')}".`);
  if (command === 'list') return { command, site };
  const rate = values['rate-limit'];
  return {
    command,
    site,
    onlySite: values['only-site'] ?? false,
    // The fields of POST /api/v2/api-keys, checked by its own rules (CreateApiKeyDto).
    fields: {
      name: values.name ?? 'Key made with npm run key',
      ...(values.publishable ? { kind: 'publishable' } : {}),
      ...(values.permissions !== undefined ? { permissions: list(values.permissions) } : {}),
      ...(values.expires !== undefined ? { expiresAt: values.expires } : {}),
      ...(values.origins !== undefined ? { allowedOrigins: list(values.origins) } : {}),
      ...(rate !== undefined ? { rateLimitPerMinute: /^\d{1,15}$/.test(rate) ? Number(rate) : rate } : {}),
    },
  };
}

async function run(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const args = parse(argv);
  // Loaded once the arguments are known to be right: a usage error answers at once.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { loadConfigs } = require('../config/configs') as { loadConfigs: typeof LoadConfigs };
  const { resolveSharedDatabase, DATABASE_CONNECT_DEADLINE_MS } = require('../database/resolve-database') as {
    resolveSharedDatabase: typeof ResolveSharedDatabase;
    DATABASE_CONNECT_DEADLINE_MS: number;
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  const configs = loadConfigs();
  configs.bootstrap.BOOTSTRAP_ENABLED = false;
  configs.jobs.JOBS_ENABLED = false;
  Object.assign(configs.metrics, { METRICS_TOKEN: '', METRICS_PORT: 0 });
  const database = configs.database;
  const db = await resolveSharedDatabase(database).catch((err: unknown) => {
    throw database.DATABASE_URL
      ? connectError(err, database.DATABASE_URL, DATABASE_CONNECT_DEADLINE_MS)
      : embeddedDatabaseError(err, database);
  });
  database.DATABASE_URL = db.url;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { runKeyCommand } = require('./key-command') as { runKeyCommand: typeof RunKeyCommand };
    await runKeyCommand(args, configs);
  } finally {
    await db.stop();
  }
}

run(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError) process.stderr.write(`${err.message}\n${USAGE}\n`);
  else if (err instanceof StartupError) process.stderr.write(`${err.message}\n`);
  else process.stderr.write(`npm run key failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
