import 'reflect-metadata';
import 'dotenv/config';
import { DataSource } from 'typeorm';
import { loadConfigs } from '../config/configs';
import { buildDataSourceOptions } from './data-source';
import { resolveSharedDatabase } from './resolve-database';

// `npm run migration:run`: applies pending migrations to DATABASE_URL, or to the embedded
// database (the running server's, or started for the purpose and stopped again).
async function main(): Promise<void> {
  const db = await resolveSharedDatabase(loadConfigs().database);
  const ds = new DataSource(buildDataSourceOptions({ url: db.url }));
  try {
    await ds.initialize();
    const done = await ds.runMigrations({ transaction: 'each' });
    console.log(done.length ? `Applied: ${done.map((m) => m.name).join(', ')}` : 'No pending migrations');
  } finally {
    if (ds.isInitialized) await ds.destroy();
    await db.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
