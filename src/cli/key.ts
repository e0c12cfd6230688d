import 'reflect-metadata';
import 'dotenv/config';
import { DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { AccountModule } from '../account/account.module';
import { SitesService } from '../account/sites.service';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { CommonModule } from '../common/common.module';
import { NotFoundProblem, Problem } from '../common/errors/problems';
import { MetricsModule } from '../common/metrics/metrics.module';
import { SiteContext } from '../common/tenancy/site-context';
import { AppConfig, loadConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { DATABASE_CONNECT_DEADLINE_MS, resolveSharedDatabase } from '../database/resolve-database';
import { connectError, embeddedDatabaseError, safeTarget, StartupError } from '../startup-errors';

/**
 * `npm run key -- <command>`: API keys for the operator, against the database the server uses
 * (DATABASE_URL, or the embedded one, running or not). A key that was lost cannot be shown
 * again, only replaced: `create` mints one and prints it once (the key alone on stdout, so
 * `KEY=$(npm run -s key -- create --site demo)` works; what it is on stderr). Keys go through
 * ApiKeysService, as the API's do: events recorded, the last unrestricted key kept.
 */
const USAGE = `Usage: npm run key -- <command> --site <site name>
  create --site demo [--name "Laptop"] [--only-site]
      a new key for the account that owns the site, printed once; it reaches every site of
      the account (as the first start's key does), or with --only-site that site alone
  list --site demo
      the account's live keys: id, name, the key's first characters, reach, last use
  revoke <id> --site demo
      revokes a key of that account (not its last key reaching every site)`;

class UsageError extends StartupError {}

/** The modules the commands need: no HTTP, no job workers, no first-start bootstrap. */
@Module({})
class KeyCommandModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: KeyCommandModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(config),
        MetricsModule,
        CommonModule,
        AccountModule,
        ApiKeysModule,
      ],
    };
  }
}

function parse(argv: string[]) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { site: { type: 'string' }, name: { type: 'string' }, 'only-site': { type: 'boolean' } },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (command !== 'create' && command !== 'list' && command !== 'revoke')
    throw new UsageError(command ? `Unknown command "${command}".` : 'Name a command.');
  if (!values.site) throw new UsageError(`${command} needs --site <site name>.`);
  if (command === 'revoke' && (rest.length !== 1 || !/^[1-9]\d{0,15}$/.test(rest[0])))
    throw new UsageError('revoke needs the id of one key (npm run key -- list --site … shows them).');
  if (command !== 'revoke' && rest.length > 0) throw new UsageError(`Unexpected "${rest.join(' ')}".`);
  return {
    command,
    site: values.site,
    name: values.name ?? 'Key made with npm run key',
    onlySite: values['only-site'] ?? false,
    id: command === 'revoke' ? Number(rest[0]) : 0,
  };
}

function reach(siteIds: number[] | null, site: SiteContext): string {
  if (siteIds === null) return 'every site of the account';
  return siteIds.length === 1 && siteIds[0] === site.id ? `site "${site.name}" only` : `sites ${siteIds.join(', ')}`;
}

async function run(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const args = parse(argv);
  const config = loadConfig();
  Object.assign(config, { BOOTSTRAP_ENABLED: false, JOBS_ENABLED: false, METRICS_TOKEN: '', METRICS_PORT: 0 });
  const db = await resolveSharedDatabase(config).catch((err: unknown) => {
    throw config.DATABASE_URL
      ? connectError(err, config.DATABASE_URL, DATABASE_CONNECT_DEADLINE_MS)
      : embeddedDatabaseError(err, config);
  });
  config.DATABASE_URL = db.url;
  const context = await NestFactory.createApplicationContext(KeyCommandModule.forRoot(config), {
    logger: false,
    abortOnError: false,
  }).catch(async (err: unknown) => {
    await db.stop().catch(() => undefined);
    throw err;
  });
  try {
    const found = await context.get(SitesService).findByName(args.site);
    if (!found)
      throw new StartupError(
        `There is no site "${args.site}" in the database at ${safeTarget(db.url)}. Sites are made by the first start (BOOTSTRAP_SITE) or with POST /api/v2/sites.`,
      );
    const site = found;
    const keys = context.get(ApiKeysService);
    if (args.command === 'create') {
      const { entity, plaintext } = await keys.createForSite(site, { name: args.name, onlySite: args.onlySite });
      process.stderr.write(
        `Created key ${entity.id} "${entity.name}", reaching ${reach(entity.siteIds, site)}. It is shown once, here; keep it:\n`,
      );
      process.stdout.write(`${plaintext}\n`);
    } else if (args.command === 'list') {
      const rows = await keys.listInAccount(site.accountId);
      for (const k of rows)
        process.stdout.write(
          [
            k.id,
            `"${k.name}"`,
            `${k.prefix}…${k.last4}`,
            reach(k.siteIds, site),
            `created ${k.createdAt.toISOString()}`,
            k.lastUsedAt ? `last used ${k.lastUsedAt.toISOString()}` : 'never used',
            ...(k.expiresAt ? [`expires ${k.expiresAt.toISOString()}`] : []),
          ].join('  ') + '\n',
        );
    } else {
      await keys.revokeInAccount(site.accountId, args.id).catch((err: unknown) => {
        throw err instanceof NotFoundProblem
          ? new StartupError(`No live key ${args.id} in the account of site "${site.name}" (list shows them).`)
          : err;
      });
      process.stderr.write(`Revoked key ${args.id}.\n`);
    }
  } finally {
    await context.close();
    await db.stop();
  }
}

run(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError) process.stderr.write(`${err.message}\n${USAGE}\n`);
  else if (err instanceof StartupError) process.stderr.write(`${err.message}\n`);
  else if (err instanceof Problem) process.stderr.write(`${err.detail ?? err.title}\n`);
  else process.stderr.write(`npm run key failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
