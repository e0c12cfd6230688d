import 'reflect-metadata';
import 'dotenv/config';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfigs } from '../config/configs';
import { buildDataSourceOptions } from './data-source';
import { migrationClassStem, registerMigration, renderMigration } from './migration-file';
import { resolveSharedDatabase } from './resolve-database';

const MIGRATIONS_DIR = join(__dirname, 'migrations');

// `npm run migration:generate -- <name>`: what the entities declare and the migrated database
// lacks, written to migrations/<timestamp>-<name>.ts as class <Name><timestamp> and added to
// migrations/index.ts. The database must be up to date (`npm run migration:run`) first.
async function main(name: string | undefined): Promise<void> {
  if (!name) throw new Error('usage: npm run migration:generate -- <kebab-case-name>');
  const timestamp = Date.now();
  const className = `${migrationClassStem(name)}${timestamp}`;
  const db = await resolveSharedDatabase(loadConfigs().database);
  // Every entity file, as ormconfig.ts loads them: an entity no module registers still counts.
  const ds = new DataSource(buildDataSourceOptions({ url: db.url, entities: ['src/**/*.entity.ts'] }));
  try {
    await ds.initialize();
    if (await ds.showMigrations()) throw new Error('the database has pending migrations: npm run migration:run first');
    const { upQueries, downQueries } = await ds.driver.createSchemaBuilder().log();
    if (!upQueries.length) {
      console.log('No changes: the entities and the database agree; nothing written');
      return;
    }
    const fileStem = `${timestamp}-${name}`;
    writeFileSync(join(MIGRATIONS_DIR, `${fileStem}.ts`), renderMigration(className, upQueries, downQueries));
    const index = join(MIGRATIONS_DIR, 'index.ts');
    writeFileSync(index, registerMigration(readFileSync(index, 'utf8'), className, fileStem));
    // In the project's style, so the file commits as written (prettier --check is part of npm test).
    execFileSync('npx', ['prettier', '--log-level', 'warn', '--write', join(MIGRATIONS_DIR, `${fileStem}.ts`), index], {
      stdio: 'inherit',
    });
    console.log(
      `Wrote src/database/migrations/${fileStem}.ts (${upQueries.length} statements), registered ${className}`,
    );
  } finally {
    if (ds.isInitialized) await ds.destroy();
    await db.stop();
  }
}

main(process.argv[2]).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
