import { DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AccountModule } from '../account/account.module';
import { SitesService } from '../account/sites.service';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { CommonModule } from '../common/common.module';
import { NotFoundProblem, Problem, ValidationProblem } from '../common/errors/problems';
import { parseFormFields } from '../common/input/form-fields';
import { CreateApiKeyDto } from '../api-keys/dto/api-key.dto';
import { MetricsModule } from '../common/metrics/metrics.module';
import { SiteContext } from '../common/tenancy/site-context';
import { ConfigModule } from '../config/config.module';
import { Configs } from '../config/configs';
import { DatabaseModule } from '../database/database.module';
import { safeTarget, StartupError } from '../startup-errors';

export type KeyCommand =
  | { command: 'create'; site: string; onlySite: boolean; fields: Record<string, unknown> }
  | { command: 'list'; site: string }
  | { command: 'revoke'; site: string; id: number };

/** The modules the commands need: no HTTP, no job workers, no first-start bootstrap. */
@Module({})
class KeyCommandModule {
  static forRoot(configs: Configs): DynamicModule {
    return {
      module: KeyCommandModule,
      imports: [
        ConfigModule.forRoot(configs),
        DatabaseModule.forRoot(configs.database),
        MetricsModule,
        CommonModule,
        AccountModule,
        ApiKeysModule,
      ],
    };
  }
}

function reach(siteIds: number[] | null, site: SiteContext): string {
  if (siteIds === null) return 'every site of the account';
  return siteIds.length === 1 && siteIds[0] === site.id ? `site "${site.name}" only` : `sites ${siteIds.join(', ')}`;
}

/** The option of `npm run key -- create` behind each field of CreateApiKeyDto. */
const OPTION_OF: Record<string, string> = {
  name: '--name',
  kind: '--publishable',
  permissions: '--permissions',
  expiresAt: '--expires',
  allowedOrigins: '--origins',
  rateLimitPerMinute: '--rate-limit',
  siteIds: '--only-site',
};

/** A 400 of the API's rules, said of the command's options, in one line. */
function optionErrors(err: ValidationProblem): StartupError {
  const said = (err.errors ?? []).map((e) => `${OPTION_OF[e.path.split('.')[0]] ?? e.path} ${e.message}`);
  return new StartupError(`${[...new Set(said)].join('; ')}.`);
}

type ListedKey = Awaited<ReturnType<ApiKeysService['listInAccount']>>[number];

/** What a key may do, as list and create say it. */
function powers(k: ListedKey): string {
  if (k.kind === 'publishable')
    return `publishable, ${k.allowedOrigins ? `from ${k.allowedOrigins.join(' ')}` : 'from any origin'}`;
  return k.permissions ? `may ${k.permissions.join(' ')}` : 'may do everything';
}

/** A rolled key's previous secret while it still works: until when, and its own last use. */
function previousSecret(k: ListedKey): string[] {
  if (!k.previousExpiresAt || k.previousExpiresAt.getTime() <= Date.now()) return [];
  const used = k.previousLastUsedAt ? `last used ${k.previousLastUsedAt.toISOString()}` : 'never used';
  return [
    `previous secret ${k.previousPrefix}…${k.previousLast4} works until ${k.previousExpiresAt.toISOString()} (${used})`,
  ];
}

/**
 * Runs one command of `npm run key` (src/cli/key.ts) through ApiKeysService, as the API's routes
 * do (events recorded, the last unrestricted key kept), on the database of DATABASE_URL. What a person
 * must act on becomes a StartupError: one line, no stack.
 */
export async function runKeyCommand(args: KeyCommand, configs: Configs): Promise<void> {
  const context = await NestFactory.createApplicationContext(KeyCommandModule.forRoot(configs), {
    logger: false,
    abortOnError: false,
  });
  try {
    const site = await context.get(SitesService).findByName(args.site);
    if (!site)
      throw new StartupError(
        `There is no site "${args.site}" in the database at ${safeTarget(configs.database.DATABASE_URL!)}. Sites are made by the first start (BOOTSTRAP_SITE) or with POST /api/v2/sites.`,
      );
    const keys = context.get(ApiKeysService);
    if (args.command === 'create') {
      const fields = { ...args.fields, ...(args.onlySite ? { siteIds: [site.id] } : {}) };
      let created: Awaited<ReturnType<ApiKeysService['createForSite']>>;
      try {
        created = await keys.createForSite(site, parseFormFields(CreateApiKeyDto, fields));
      } catch (err) {
        throw err instanceof ValidationProblem ? optionErrors(err) : err;
      }
      const { entity, plaintext } = created;
      const until = entity.expiresAt ? `, until ${entity.expiresAt.toISOString()}` : '';
      process.stderr.write(
        `Created key ${entity.id} "${entity.name}", reaching ${reach(entity.siteIds, site)}: ${powers(entity)}${until}. It is shown once, here; keep it:\n`,
      );
      process.stdout.write(`${plaintext}\n`);
    } else if (args.command === 'list') {
      for (const k of await keys.listInAccount(site.accountId))
        process.stdout.write(
          [
            k.id,
            `"${k.name}"`,
            `${k.prefix}…${k.last4}`,
            reach(k.siteIds, site),
            powers(k),
            `created ${k.createdAt.toISOString()}`,
            k.lastUsedAt ? `last used ${k.lastUsedAt.toISOString()}` : 'never used',
            ...(k.expiresAt ? [`expires ${k.expiresAt.toISOString()}`] : []),
            ...previousSecret(k),
          ].join('  ') + '\n',
        );
    } else {
      await keys.revokeInAccount(site.accountId, args.id);
      process.stderr.write(`Revoked key ${args.id}.\n`);
    }
  } catch (err) {
    if (err instanceof NotFoundProblem && args.command === 'revoke')
      throw new StartupError(`No live key ${args.id} in the account of site "${args.site}" (list shows them).`);
    throw err instanceof Problem ? new StartupError(err.detail ?? err.title) : err;
  } finally {
    await context.close();
  }
}
